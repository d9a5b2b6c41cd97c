import FFmpegCore
import Synchronization
import SystemSupport

/// Counters a reader thread updates and other threads read for progress reports.
final class ReaderStatistics: Sendable {
    private let delivered = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let pictures = Atomic<Int>(0)
    private let lastDelivery = Atomic<Int64>(MonotonicClock.nanoseconds())

    /// An item handed on; `picture`: a picture (counted apart too, for the session's captured pictures).
    func countDelivered(picture: Bool = false) {
        delivered.add(1, ordering: .relaxed)
        if picture { pictures.add(1, ordering: .relaxed) }
        lastDelivery.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
    }

    /// When the last frame was delivered (monotonic nanoseconds); the reader's creation time before that.
    var lastDeliveryNanoseconds: Int64 { lastDelivery.load(ordering: .relaxed) }
    func countDropped(_ count: Int = 1) { dropped.add(count, ordering: .relaxed) }

    var deliveredCount: Int { delivered.load(ordering: .relaxed) }
    var droppedCount: Int { dropped.load(ordering: .relaxed) }
    var pictureCount: Int { pictures.load(ordering: .relaxed) }
}
