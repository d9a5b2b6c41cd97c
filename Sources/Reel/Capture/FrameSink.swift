import FFmpegCore

/// Where a reader puts decoded frames: converts them to what the encoder takes and queues them.
protocol FrameSink: AnyObject {
    var mediaType: MediaType { get }
    /// Takes a decoded frame whose start, in session time, is `time`.
    func consume(_ frame: Frame, at time: Timestamp) throws
    /// The input ended: pass on whatever is still held back.
    func finish() throws
    /// True once the sink wants nothing more (its frames are past the duration limit): the reader stops.
    var isSatisfied: Bool { get }
    /// Whether the reader's end ends the sink's stream in the capture buffer (not for one input of a mix,
    /// whose stream ends with the last of them).
    var endsStream: Bool { get }
}

extension FrameSink {
    var endsStream: Bool { true }
}

/// The part of the duration limit a video reader can apply: pictures more than a second past the limit
/// (measured from the stream's first picture) are not wanted. The encoder makes the exact cut; this keeps late frames out
/// of the queues and the drop counts, and lets the reader stop.
/// Paused time moves the limit on (see PausedTime).
struct ReaderTimeLimit {
    private let limit: Timestamp?
    private var first: Timestamp?
    private let pausedTime: PausedTime?

    init(maxDuration: Double?, pausedTime: PausedTime? = nil) {
        limit = maxDuration.map { Timestamp(value: Int64(($0 + 1) * 1_000_000), timeBase: sessionTimeBase) }
        self.pausedTime = pausedTime
    }

    /// Whether a frame starting at `time` is past the limit.
    mutating func isPast(_ time: Timestamp) -> Bool {
        if first == nil { first = time }
        guard let limit, let first else { return false }
        guard let paused = pausedTime.map({ $0.allowance }) ?? 0 else { return false }
        return limit + Timestamp(value: paused, timeBase: sessionTimeBase) < time - first
    }
}

/// Session time is kept in microseconds at the reader stage: fine enough for any device clock.
let sessionTimeBase = Rational(1, 1_000_000)
