import FFmpegCore

/// Where a reader puts decoded frames: converts them to what the encoder takes and queues them.
protocol FrameSink: AnyObject {
    var mediaType: MediaType { get }
    /// Takes a decoded frame whose start, in session time, is `time`.
    func consume(_ frame: Frame, at time: Timestamp) throws
    /// The input ended: pass on whatever is still held back.
    func finish() throws
}

/// Session time is kept in microseconds at the reader stage: fine enough for any device clock.
let sessionTimeBase = Rational(1, 1_000_000)
