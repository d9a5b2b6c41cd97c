import CSystemSupport

/// A live sound device's reader runs ahead of the rest of the machine, as PulseAudio's and PipeWire's own
/// threads do: an ALSA or PulseAudio buffer holds a fraction of a second, and a reader that a busy machine
/// keeps off the CPU for longer overruns it — the samples are gone, and the engine can only put silence in
/// their place (ClockDriftCorrection). The thread asks for PulseAudio's nice level, −11, for itself only
/// (Linux's setpriority takes a thread id); it mostly sleeps in its reads, so it takes little from others.
/// Raising a priority needs root, CAP_SYS_NICE or an RLIMIT_NICE of 31 (limits.conf `nice`); without it
/// the thread stays at the process's level, as before.
enum DeviceThreadPriority {
    static let niceLevel: Int32 = -11

    /// Whether a reader of `kind` raises its thread's priority.
    static func raises(_ kind: DeviceSpec.Kind) -> Bool { kind == .alsa || kind == .pulse }

    /// Raises the calling thread's priority; false when not permitted (or already higher).
    @discardableResult
    static func raiseCurrentThread() -> Bool { reel_raise_current_thread_priority(niceLevel) == 1 }
}
