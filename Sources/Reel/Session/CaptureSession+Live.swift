import FoundationEssentials

/// Live streams added to a recording session while it runs.
extension CaptureSession {
    /// The running session's own movie, for a live stream that joins it; why there is none otherwise.
    func movieForJoiningStream() throws -> MovieRecorder {
        try shared.withLock { shared in
            guard case .recording(let running) = shared.phase else {
                throw ReelError.invalidInput("the session is not recording: add live streams to its configuration, or once it runs")
            }
            guard let movie = running.mainMovie else {
                throw ReelError.invalidInput("a live stream comes from the session's movie: this session records none")
            }
            return movie
        }
    }

    /// Streams the session's movie as HLS into a folder from now on (as `--live DIR` does at the start): the
    /// stream begins at the movie's next picture, a keyframe, and its segments are cut on the movie's grid
    /// (multiples of the segment duration from the movie's start, where the movie forces keyframes from now
    /// on), so the first one is shorter. Throws, writing nothing, when the session records no movie or is not
    /// running, when the folder cannot be used (the checks of `--live`), when the movie streams there
    /// already, or when the movie's other HLS streams cut segments of another length.
    public func addLiveStream(_ stream: LiveStream) throws {
        let movie = try movieForJoiningStream()
        let running = try runningForNewOutput("live streams")
        if let other = movie.setup.live.compactMap(\.hlsStream).first?.segmentDuration ?? movie.liveJoins.segmentDuration,
           other != stream.segmentDuration {
            throw ReelError.invalidInput("--live \(stream.folder): the movie's HLS streams cut \(NumberText.plain(other)) s segments; give this one the same")
        }
        try LiveFolder.check([stream], plan: running.plan, overwrite: running.context.configuration.overwrite)
        let folder = URL(fileURLWithPath: stream.folder).standardizedFileURL.path
        let started = movie.setup.live.compactMap(\.hlsStream).map { URL(fileURLWithPath: $0.folder).standardizedFileURL.path }
        guard !started.contains(folder) else {
            throw ReelError.invalidInput("--live \(stream.folder): the movie streams there already")
        }
        try LiveFolder.prepare(stream)
        guard movie.liveJoins.add(LiveOutput(stream: stream, joinsRunningMovie: true), to: folder, already: started) else {
            throw ReelError.invalidInput("--live \(stream.folder): the movie has ended or streams there already")
        }
    }

    /// The running session, for an output added to it; why it cannot take one otherwise.
    func runningForNewOutput(_ what: String) throws -> Running {
        try shared.withLock { shared in
            guard case .recording(let running) = shared.phase else {
                throw ReelError.invalidInput("the session is not running: add \(what) once it has started")
            }
            return running
        }
    }

    /// Adds live streams with encoders of their own (a session without a movie, such as `reel serve`'s
    /// camera): they start at the next picture. Throws `ReelError.invalidInput`, before anything is written,
    /// when the session is not running, when there is no stream, or when a folder or server cannot be used
    /// (the checks of `--live`).
    public func addOutput(_ live: LiveStreamOutput) throws {
        guard !live.streams.isEmpty || !live.pushes.isEmpty else {
            throw ReelError.invalidInput("a live stream output needs a folder (LiveStream) or a server (LivePush)")
        }
        let running = try runningForNewOutput("live streams")
        try LiveFolder.check(live.streams, plan: running.plan, overwrite: running.context.configuration.overwrite)
        try LivePush.check(live.pushes, videoCodec: live.preset.video.codec)
        let outputs = live.streams.map { LiveOutput(stream: $0) } + live.pushes.map { LiveOutput(push: $0) }
        let setup = try running.context.liveStreams(preset: live.preset, live: outputs)
        for stream in live.streams { try LiveFolder.prepare(stream) }
        guard CaptureSession.addWithoutMovie(setup, running: running, attach: live.attach) else {
            throw ReelError.invalidInput("the session has ended: start it again before adding live streams")
        }
    }

    /// Pushes the session's movie to a server from now on (SRT or RTMP, as `--live` does at the start): the
    /// stream begins at the movie's next picture, which the movie makes a keyframe, and is in the movie's
    /// result (`live`) when it ends. Throws when the session records no movie or is not running, when the
    /// server is already pushed to, or when RTMP would carry HEVC.
    public func addLiveStream(_ push: LivePush) throws {
        let movie = try movieForJoiningStream()
        try LivePush.check([push], videoCodec: movie.setup.preset.video.codec)
        guard movie.liveJoins.add(LiveOutput(push: push), to: push.url, already: movie.setup.live.compactMap(\.push?.url)) else {
            throw ReelError.invalidInput("--live \(push.displayURL): the movie has ended or already pushes there")
        }
    }
}
