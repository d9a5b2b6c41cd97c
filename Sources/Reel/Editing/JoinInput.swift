import FFmpegCore

/// One movie a join reads: its samples (TrackIndex) and its span.
struct JoinInput {
    let path: String
    let index: TrackIndex
    /// Where its presented pictures end (its video time base, from its first picture at 0).
    let videoEnd: Int64

    init(path: String) throws {
        self.path = path
        guard !FileSystem.isFolder(path) else { throw ReelError.invalidInput("\(path) is a folder: give join movies") }
        let input: InputContext
        do {
            input = try InputContext(url: path, formatName: nil)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("cannot read \(path): \(error.inputProblem); check the path and that it is a movie")
        }
        index = try TrackIndex(input, path: path)
        videoEnd = index.videoSamples.map { $0.presentationTime + max($0.duration, 1) }.max() ?? 0
    }
}
