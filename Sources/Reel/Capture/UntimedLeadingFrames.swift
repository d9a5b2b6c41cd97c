import FFmpegCore

/// A file's frames that come before its stream's first timestamp (a Matroska file whose first pictures had
/// negative times: the muxer stored none for them). Continuing from nothing put them at 0 and on, half a
/// second of pictures then ran into the first timed ones (the first picture repeated, later ones dropped,
/// everything after late against the sound). They are held until the first timed frame of their stream and
/// then placed before it, one frame duration apart, as they were recorded. At most `byteLimit` of pictures
/// are held; past that, or at the end of a stream that never gets a timestamp, they go on from the last
/// known time as before. One per reader; its thread only.
struct UntimedLeadingFrames {
    static let byteLimit = 64 << 20
    static let countLimit = 240

    private var held: [Int: [Frame]] = [:]
    private var heldBytes = 0

    /// Whether `frame` (no timestamp, its stream not timed yet) is kept for later; it then references the
    /// frame's buffers, and the caller may reuse `frame`.
    mutating func hold(_ frame: Frame, stream: Int) throws -> Bool {
        let bytes = max(frame.width * frame.height * 3 / 2, frame.sampleCount * 8)
        let count = held[stream]?.count ?? 0
        guard count < UntimedLeadingFrames.countLimit, heldBytes + bytes <= UntimedLeadingFrames.byteLimit else { return false }
        let copy = Frame()
        try copy.reference(frame)
        held[stream, default: []].append(copy)
        heldBytes += bytes
        return true
    }

    func isHolding(stream: Int) -> Bool { !(held[stream]?.isEmpty ?? true) }

    /// The frames held for `stream`, each with the time it gets: `step` apart (nil: the held frames' own
    /// duration), ending `step` before `firstTime` (the stream's first timestamp), or from `firstTime` on
    /// when `before` is false.
    mutating func release(stream: Int, firstTime: Int64, step: Int64?, before: Bool) -> [(frame: Frame, time: Int64)] {
        let frames = held.removeValue(forKey: stream) ?? []
        heldBytes = held.values.joined().reduce(0) { $0 + max($1.width * $1.height * 3 / 2, $1.sampleCount * 8) }
        let step = max(step ?? frames.first?.duration ?? 1, 1)
        return frames.enumerated().map { index, frame in
            (frame, before ? firstTime - Int64(frames.count - index) * step : firstTime + Int64(index) * step)
        }
    }

    var streams: [Int] { Array(held.keys) }
}
