/// Where a block of samples goes on a movie's audio timeline, from its start time and what is already
/// queued: right after it, after silence where it leaves a hole, or without the part that overlaps. Pure,
/// unit-tested in AudioPlacementTests.
enum AudioPlacement: Equatable {
    case append
    /// A hole in a file's audio, or samples a device lost: this much silence keeps every later sound in place.
    case silenceFirst(Int64)
    /// Audio that steps back over what is queued (files only): skip this many of the block's first samples.
    case skipFirst(Int)

    /// Holes from a live device longer than this are not filled (a device that stalled and came back starts
    /// a new run instead of seconds of silence).
    static let longestLiveHoleSeconds: Int64 = 5

    /// `expected`: where the queued audio ends (samples); `tolerance`: a difference this small is no hole
    /// (rounding after resampling); `followsInputTimeline`: a file's timeline, whose holes and overlaps are
    /// real, whatever their length.
    static func place(start: Int64, expected: Int64, blockSamples: Int, tolerance: Int64, followsInputTimeline: Bool,
                      sampleRate: Int) -> AudioPlacement {
        // Wrapping arithmetic: a file's timestamps can be anything, and a wrong time is no reason to crash.
        let gap = start &- expected
        if gap > tolerance && (followsInputTimeline || gap < Int64(sampleRate) * longestLiveHoleSeconds) {
            return .silenceFirst(gap)
        }
        if gap < -tolerance && followsInputTimeline {
            return .skipFirst(Int(min(gap.magnitude, UInt64(blockSamples))))
        }
        return .append
    }
}
