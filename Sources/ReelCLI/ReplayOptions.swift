@_spi(ReelTools) import Reel

/// `--replay-buffer S`, `--replay-buffer-size BYTES` and `--no-movie`, for record.
enum ReplayOptions {
    static let valueOptions: Set<String> = ["--replay-buffer", "--replay-buffer-size"]
    static let flagOptions: Set<String> = ["--no-movie"]

    static let help = """
        replay buffer (the last seconds in memory, saved on demand; from the movie's encoders):
          --replay-buffer S      keep the last S seconds (\(NumberText.plain(ReplayBuffer.secondsRange.lowerBound)) to \(NumberText.plain(ReplayBuffer.secondsRange.upperBound))) of encoded pictures and sound, whole
                                 groups of pictures; reel ctl SOCK save-replay FILE.mov [SECONDS] writes them to a
                                 movie (starting on a keyframe, ending with the picture of the request)
          --replay-buffer-size BYTES
                                 keep at most BYTES (default \(ByteCount.format(Int64(ReplayBuffer.defaultMaxBytes))): 60 s of 1080p); older groups go first
          --no-movie             record no movie of its own: only the replay buffer fills (no OUTPUT; with
                                 --control to save, and Ctrl-C or reel ctl SOCK stop to end)
        """

    /// The replay buffer the options ask for, if any; `--no-movie` needs one and refuses what writes a movie.
    static func apply(_ arguments: ParsedArguments, to configuration: inout RecordingConfiguration, hasOutput: Bool) throws {
        let size = try arguments.byteCount("--replay-buffer-size", examples: "64M, 1Gi")
        if let seconds = try arguments.number("--replay-buffer", in: ReplayBuffer.secondsRange) {
            guard size.map({ ReplayBuffer.maxBytesRange.contains(Int($0)) }) ?? true else {
                throw UsageError("--replay-buffer-size \(arguments.value("--replay-buffer-size") ?? "") is out of range: use 1M to 8G")
            }
            configuration.replayBuffer = ReplayBuffer(seconds: seconds, maxBytes: size.map { Int($0) } ?? ReplayBuffer.defaultMaxBytes)
        } else if size != nil {
            throw UsageError("--replay-buffer-size bounds a replay buffer: add --replay-buffer SECONDS")
        }
        guard arguments.has("--no-movie") else { return }
        guard configuration.replayBuffer != nil else {
            throw UsageError("--no-movie records nothing by itself: add --replay-buffer SECONDS (and --control SOCK to save it)")
        }
        if hasOutput { throw UsageError("--no-movie writes no movie: leave out the output file") }
        let moviesOnly = ["--tier", "--segment-duration", "--segment-size", "--keep-segments", "--keep-free", "--max-size", "--still", "--live"]
        if let option = moviesOnly.first(where: { arguments.value($0) != nil }) {
            throw UsageError("\(option) is for a movie, and --no-movie records none")
        }
        configuration.recordsMovie = false
    }
}
