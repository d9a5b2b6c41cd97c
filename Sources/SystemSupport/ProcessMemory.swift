import CSystemSupport

/// The process's heap as glibc keeps it.
public enum ProcessMemory {
    /// Gives the memory malloc holds free back to the system. glibc keeps what a thread freed in that
    /// thread's arena, resident, for the next allocation there; a long-running process that opens and closes
    /// large native objects (a video encoder's tens of MB) on threads that come and go grows by it unless it
    /// trims once they are gone. Costs a walk over the arenas (0.1-0.3 ms as a 720p or 1080p recording's
    /// encoders close): call it after freeing something large, not per frame.
    public static func releaseFree() { reel_release_free_memory() }
}
