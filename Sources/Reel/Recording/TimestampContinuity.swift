/// Keeps one stream's timestamps continuous across the jumps of joined or spliced recordings, as players
/// and the ffmpeg CLI do: MPEG-TS segments put end to end (timestamps fall back from 101 s to 6 s, or leap
/// ahead by minutes) play as one timeline. A jump is glued by an offset so the stream continues where it
/// would have; the offset then applies to every later timestamp of the stream.
///
/// Backward jumps of more than half a second are glued in every format (a picture cannot be shown before
/// the one it follows). Forward jumps are real gaps (a file with a hole plays its hole), except in formats
/// that allow timestamp discontinuities (TS, PS), where a leap of more than ten seconds is a splice, and
/// leaps of more than an hour, which are glued in every format (a damaged timestamp, not an hour of
/// silence and a frozen picture to encode).
struct TimestampContinuity {
    /// Times in microseconds (the session time base).
    static let backwardTolerance: Int64 = 500_000
    static let forwardTolerance: Int64 = 10_000_000
    static let forwardToleranceAnyFormat: Int64 = 3_600_000_000

    let gluesForwardJumps: Bool
    private var offset: Int64 = 0
    private var expected: Int64? = nil
    private var last: Int64? = nil
    /// The interval between frames when they carry no duration: the last one under a second (a hole in
    /// the stream is not its frame interval).
    private var step: Int64 = 0
    /// How many jumps were glued.
    private(set) var jumps = 0

    init(gluesForwardJumps: Bool) {
        self.gluesForwardJumps = gluesForwardJumps
    }

    /// The continuous time of a frame whose timestamp is `raw` and which lasts `duration` (0 if unknown).
    mutating func continuous(_ raw: Int64, duration: Int64) -> Int64 {
        var time = raw &+ offset
        if let expected {
            let jump = time &- expected
            let forwardLimit = gluesForwardJumps ? TimestampContinuity.forwardTolerance : TimestampContinuity.forwardToleranceAnyFormat
            if jump < -TimestampContinuity.backwardTolerance || jump > forwardLimit {
                offset = offset &+ (expected &- time)
                time = expected
                jumps += 1
            }
        }
        if let last, case let interval = time &- last, interval > 0, interval <= 1_000_000 { step = interval }
        last = time
        expected = max(expected ?? time, time &+ (duration > 0 ? duration : step))
        return time
    }
}
