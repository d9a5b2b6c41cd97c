import FFmpegCore

/// One movie a join reads: its samples (TrackIndex) and its span.
struct JoinInput {
    let path: String
    let index: TrackIndex
    /// Where its presented pictures end (its video time base, from its first picture at 0).
    let videoEnd: Int64

    init(path: String) throws {
        self.path = path
        index = try TrackIndex(try TrackIndex.open(path, for: "join"), path: path)
        videoEnd = index.videoSamples.map { $0.presentationTime + max($0.duration, 1) }.max() ?? 0
    }
}
