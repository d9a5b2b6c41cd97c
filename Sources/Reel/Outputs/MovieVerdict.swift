/// What a finished movie holds and whether it is usable: the decisions finalization makes from what the
/// writer reports, apart from the writing itself. Pure, unit-tested in MovieVerdictTests.
struct MovieVerdict: Equatable {
    struct Facts {
        var stopReason: StopReason?
        /// The trailer (or the complete index) was written.
        var finalized: Bool
        var hasVideo: Bool
        var hasAudio: Bool
        /// Pictures the file holds.
        var fileVideoFrames: Int
        var audioSamplesEncoded: Int64
        /// Where the last written audio packet ends, in samples of the movie's timeline.
        var audioEnd: Int64
        /// A limit cut the writing short (some encoded packets are not in the file).
        var cut: Bool
    }

    /// Samples the file plays: what was encoded, or up to the last packet written when a limit cut it (AAC
    /// packets are stamped earlier by the priming the edit list trims, so the last one's end is the media).
    let fileAudioSamples: Int64
    /// Finalized, holds media, every requested track present, and nothing failed.
    let usable: Bool
    /// Why the movie is not usable although finalized: a limit came before a track's first sample.
    let problem: String?

    init(_ facts: Facts) {
        fileAudioSamples = facts.cut ? min(facts.audioSamplesEncoded, max(0, facts.audioEnd)) : facts.audioSamplesEncoded
        // A limit that stops the recording before a requested track has anything in the file leaves no usable
        // movie (a 1080p keyframe larger than the size limit, a disk that fills at once).
        let limitStopped = [StopReason.maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(facts.stopReason)
        let missingVideo = facts.hasVideo && facts.fileVideoFrames == 0
        let missingTrack = limitStopped && (missingVideo || (facts.hasAudio && fileAudioSamples == 0))
        if facts.finalized && missingTrack {
            let track = missingVideo ? "the first picture" : "the first audio"
            problem = facts.stopReason == .maxFileSizeReached
                ? "the size limit was reached before \(track) fit in the file: raise the max size or use a smaller preset"
                : "the disk filled before \(track) fit in the file: free space on it or record elsewhere"
        } else {
            problem = nil
        }
        usable = facts.finalized && (facts.fileVideoFrames > 0 || fileAudioSamples > 0) && !missingTrack
            && facts.stopReason != .failed
    }

    /// Whether the encoders are flushed before the trailer: not after a size or disk limit (what is still in
    /// them would not fit) nor after a failure.
    static func flushesEncoders(after stopReason: StopReason?) -> Bool {
        ![StopReason.failed, .maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(stopReason)
    }
}
