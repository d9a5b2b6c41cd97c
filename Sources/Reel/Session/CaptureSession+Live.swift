/// Live streams added to a recording session while it runs.
extension CaptureSession {
    /// Pushes the session's movie to a server from now on (SRT or RTMP, as `--live` does at the start): the
    /// stream begins at the movie's next picture, which the movie makes a keyframe, and is in the movie's
    /// result (`live`) when it ends. Throws when the session records no movie or is not running, when the
    /// server is already pushed to, when RTMP would carry HEVC, or when the movie is segmented with sound and
    /// started without live streams (its streams' sound is encoded across its files from the start).
    public func addLiveStream(_ push: LivePush) throws {
        let movie = try movieForJoiningStream()
        try LivePush.check([push], videoCodec: movie.setup.preset.video.codec)
        guard movie.takesLiveStreamsWhileRecording else {
            throw ReelError.invalidInput("--live \(push.displayURL): a segmented movie with sound takes live streams at its start only")
        }
        guard movie.liveJoins.add(LiveOutput(push: push), pushingTo: push.url, already: movie.setup.live.compactMap(\.push)) else {
            throw ReelError.invalidInput("--live \(push.displayURL): the movie has ended or already pushes there")
        }
    }
}
