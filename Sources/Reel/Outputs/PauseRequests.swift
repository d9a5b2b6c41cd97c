import FFmpegCore
import Synchronization
import SystemSupport

/// A movie's pauses as asked from any thread (MovieOutput.pause, the session's pauseRecording, SIGUSR1, the
/// control socket), kept as stretches of the session's clock: a live movie leaves out exactly the items
/// captured between a pause and its resume, however late its thread takes them, and the same stretch from
/// pictures and sound. Without a clock (a file's own timeline) a pause starts and ends at the next item the
/// movie takes. Thread-safe; the movie's thread reads it through `interval(at:itemTime:paused:)`.
final class PauseRequests: Sendable {
    struct Interval: Equatable, Sendable {
        /// Session microseconds; nil until the movie's next item decides it (no clock).
        var start: Int64?
        var end: Int64?
        var resumed: Bool
    }

    /// A stretch with its start decided: the movie's view of it.
    struct Stretch: Equatable {
        var start: Int64
        /// Nil while the movie is still paused.
        var end: Int64?
    }

    private let sessionStart: Int64?
    private let intervals = Locked<[Interval]>([])
    /// How many pauses were asked for: lets a movie skip the lock for every item when none is pending.
    private let requested = Atomic<Int>(0)

    /// A movie that takes a shared encoder's pictures: moves a pause's (`true`) or resume's instant (nil
    /// without a clock: now, where the movie is) to where its keyframe falls (EncoderSubscription), so the
    /// sound leaves out the same whole frames as the pictures; nil leaves it where it was.
    typealias Alignment = @Sendable (_ pausing: Bool, _ time: Int64?) -> Int64?
    private let alignment: Alignment?

    /// `sessionStart`: the session clock's zero (monotonic nanoseconds); nil to place pauses at items.
    init(sessionStart: Int64?, alignment: Alignment? = nil) {
        self.sessionStart = sessionStart
        self.alignment = alignment
    }

    private var now: Int64? { sessionStart.map { (MonotonicClock.nanoseconds() - $0) / 1000 } }

    /// Pauses (once; a second pause while paused does nothing) or resumes.
    func set(_ paused: Bool) {
        let time = now
        intervals.withLock { list in
            let open = list.last.map { !$0.resumed } ?? false
            if paused && !open {
                let start = alignment.flatMap { $0(true, time) } ?? time
                list.append(Interval(start: start, end: nil, resumed: false))
                requested.store(list.count, ordering: .releasing)
            }
            if !paused && open {
                let end = alignment.flatMap { $0(false, time) } ?? time
                list[list.count - 1].end = end.map { max($0, list[list.count - 1].start ?? $0) }
                list[list.count - 1].resumed = true
            }
        }
    }

    var isPaused: Bool { intervals.withLock { $0.last.map { !$0.resumed } ?? false } }

    /// The stretch at `index` as the movie sees it at an item of `itemTime` (microseconds), deciding the
    /// times a clockless pause left open from this item; nil when there is none (yet).
    func interval(at index: Int, itemTime: Int64, paused: Bool) -> Stretch? {
        guard index < requested.load(ordering: .acquiring) else { return nil }
        return intervals.withLock { list in
            guard index < list.count else { return nil }
            if list[index].start == nil { list[index].start = itemTime }
            if list[index].resumed && list[index].end == nil && paused { list[index].end = itemTime }
            return Stretch(start: list[index].start!, end: list[index].resumed ? list[index].end ?? list[index].start! : nil)
        }
    }
}
