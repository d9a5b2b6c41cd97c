import CFFmpeg
import Synchronization
import Glibc

/// Unblocks FFmpeg I/O from another thread: a raised flag, or a passed deadline, makes the blocking call
/// (av_read_frame on a device, avformat_open_input) return AVERROR_EXIT through the interrupt callback.
public final class InterruptFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    private let deadlineNanoseconds = Atomic<Int64>(0)
    private let parent: InterruptFlag?
    private let follows = Atomic<Bool>(true)

    /// A flag `following` another counts as raised while that one is, until `stopFollowing()` (a session's
    /// stop interrupts the opening of its inputs, and no longer reaches them once they are open).
    public init(following parent: InterruptFlag? = nil) { self.parent = parent }

    public func stopFollowing() { follows.store(false, ordering: .releasing) }

    public func raise() { raised.store(true, ordering: .releasing) }
    public var isRaised: Bool {
        raised.load(ordering: .acquiring) || (parent?.isRaised == true && follows.load(ordering: .acquiring))
    }

    /// Interrupts any blocking call still running `seconds` from now; `nil` clears the deadline.
    public func setDeadline(secondsFromNow seconds: Double?) {
        guard let seconds else {
            deadlineNanoseconds.store(0, ordering: .relaxed)
            return
        }
        deadlineNanoseconds.store(MonotonicClock.nanoseconds() + Int64(seconds * 1e9), ordering: .relaxed)
    }

    public var deadlinePassed: Bool {
        let deadline = deadlineNanoseconds.load(ordering: .relaxed)
        return deadline > 0 && MonotonicClock.nanoseconds() > deadline
    }

    var shouldInterrupt: Bool { isRaised || deadlinePassed }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock for pacing, timeouts and arrival times.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}

let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
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
