import QuickTime

/// Which AAC frames a trim copies, and the edit that presents exactly the samples of the kept span.
///
/// Frames are in decode order with times in samples on the track's presentation timeline (the first sample
/// presented at 0; the encoder's priming before it). The copy starts one frame before the frame holding the
/// span's first sample: an AAC frame decodes exactly only after the one before it (their transforms overlap),
/// and the edit list skips that frame and the samples up to the span's start. The span ends with the frame
/// holding its last sample; the edit's duration stops the presentation at the span's end (or where the sound
/// ends, when it is shorter than the pictures).
struct AudioTrimPlan: Equatable {
    /// Decode-order frames copied.
    let frames: Range<Int>
    /// Samples of the first copied frame and after it that are not presented (warm-up and what precedes the
    /// span): the edit's media time, counted from the first copied frame.
    let skip: Int64
    /// Samples presented.
    let duration: Int64

    /// Nil when no sound falls in [start, end).
    init?(frames: [Sample], start: Int64, end: Int64) {
        guard let lastFrame = frames.last, start < end else { return nil }
        let soundEnd = lastFrame.presentationTime + lastFrame.duration
        guard start < soundEnd, end > frames[0].presentationTime else { return nil }
        let begin = max(start, frames[0].presentationTime)
        let holding = frames.lastIndex { $0.presentationTime <= begin } ?? 0
        let first = max(holding - 1, 0)
        let stop = min(end, soundEnd)
        let last = frames.lastIndex { $0.presentationTime < stop } ?? holding
        self.frames = first..<(last + 1)
        skip = begin - frames[first].presentationTime
        duration = stop - begin
    }
}
