/// A movie's sound track as bookkeeping, without FFmpeg: where the queued samples start on the session's
/// clock, how far encoding may go (the duration limit, a segment's wall, the pictures sent so far, the
/// stop's cap) and how long the next AAC frame is. The movie (MovieRecorder) holds the FIFO and the encoders
/// and asks this value what to encode; unit-tested in AudioTrackTests.
struct AudioTrack {
    let sampleRate: Int
    /// The session sample of the queue's first sample, once the first block came.
    var queueStart: Int64? = nil
    /// Samples encoded so far (all files).
    var samplesEncoded: Int64 = 0
    /// Where a stop ends the audio (in samples from the origin): at the video's end (see flushEncoders).
    var endCap: Int64? = nil

    /// How far a stop lines the tracks' ends up: a gap longer than this is not the last frame and block
    /// (a device that stalled before the stop) and is left as it is.
    static let endAlignmentLimit: Double = 0.5

    var alignmentLimitSamples: Int64 { Int64(AudioTrack.endAlignmentLimit * Double(sampleRate)) }

    /// Where the queued audio ends, in samples from the movie's origin.
    func queuedEnd(originSample: Int64, queued: Int) -> Int64? {
        queueStart.map { $0 - originSample + Int64(queued) }
    }

    /// While the video runs, audio is encoded no further than the pictures sent so far (`videoSent`, in
    /// samples from the origin: it arrives ahead of them), so that a stop can cut the queued rest at the
    /// video's end; audio further ahead than the alignment limit (a stalled camera) is encoded anyway, which
    /// keeps the queue bounded. Nil: no wait.
    func waitPoint(originSample: Int64, queued: Int, videoSent: Int64?) -> Int64? {
        guard let videoSent, let end = queuedEnd(originSample: originSample, queued: queued) else { return nil }
        return max(videoSent, end - alignmentLimitSamples)
    }

    /// What to do with the frame that starts at `position` (samples from the origin) with `queued` samples
    /// waiting.
    enum NextFrame: Equatable {
        /// Encode this many samples (a frame, or a short one at a limit, a wall or the end).
        case encode(Int)
        /// Nothing to encode now: the queue is short, a wall or the pictures are not reached yet.
        case wait
        /// The limit is reached: the track ends.
        case limitReached
    }

    /// The next frame of `frameSize` samples: up to `limit` (the first sample not kept: the duration limit,
    /// the stop's cap, the total size's end, where the frame is short), not across `wall` (a segment boundary
    /// planned but not committed yet: the frame waits for the video to commit it, then crosses it whole, as
    /// one encoder's frames run on across a movie's files) and up to `waitPoint`. Only the `final` frame
    /// takes fewer samples than it should for want of them.
    static func nextFrame(position: Int64, frameSize: Int, queued: Int, limit: Int64?, wall: Int64?,
                          waitPoint: Int64?, final: Bool) -> NextFrame {
        if let limit, position >= limit { return .limitReached }
        var end = position + Int64(frameSize)
        if let limit { end = min(end, limit) }
        if let wall, end > wall { return .wait }  // the video has not reached the boundary yet
        if let waitPoint, end > waitPoint { return .wait }
        var count = Int(end - position)
        guard count > 0 else { return .wait }
        if queued < count {
            guard final, queued > 0 else { return .wait }
            count = queued
        }
        return .encode(count)
    }

    /// Where the audio encoded so far ends (the queue's start), in samples from the origin.
    func encodedEnd(originSample: Int64) -> Int64? { queueStart.map { $0 - originSample } }

    /// Ends the audio at the video's end (`videoEnd`, in samples from the origin) when the two are within
    /// the alignment limit: what passes it is not encoded, and a shortfall is padded with silence.
    mutating func capAtVideoEnd(_ videoEnd: Int64, originSample: Int64, queued: Int) {
        guard let audioEnd = queuedEnd(originSample: originSample, queued: queued) else { return }
        if abs(videoEnd - audioEnd) <= alignmentLimitSamples { endCap = videoEnd }
    }
}
