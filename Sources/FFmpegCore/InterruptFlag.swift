import CFFmpeg
import SystemSupport
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

let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
}
