import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock for pacing, timeouts and arrival times.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}

/// CPU time, for the engine's per-stage accounting (what the benchmark harness reports as engine overhead).
public enum CPUClock {
    /// CPU time the calling thread has used, in nanoseconds.
    public static func threadNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// CPU time (user + system) the whole process has used, in nanoseconds.
    public static func processNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
