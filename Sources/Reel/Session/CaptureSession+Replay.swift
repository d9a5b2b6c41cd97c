import FoundationEssentials

/// Replay buffers of a running session.
extension CaptureSession {
    /// Adds a replay buffer to the running session: it fills from the next picture (a keyframe) of the
    /// session's own movie, or, in a session without a movie (`reel serve`'s camera), from encoders of its own
    /// at its preset (the session's when it names none). Throws `ReelError.invalidInput` when the session is
    /// not running, the buffer's settings are out of range, or another recording fills it.
    public func addOutput(_ replay: ReplayBuffer) throws {
        try replay.validate()
        let running = try runningForNewOutput("a replay buffer")
        guard replay.claim() else {
            throw ReelError.invalidInput("the replay buffer is being filled by another recording: give this one its own")
        }
        do {
            if let movie = running.mainMovie {
                guard movie.liveJoins.add(LiveOutput(replay: replay), to: "replay \(ObjectIdentifier(replay))", already: []) else {
                    throw ReelError.invalidInput("the movie has ended: start the session again before adding a replay buffer")
                }
            } else {
                try startWithoutMovie(replay, running: running)
            }
        } catch {
            replay.release()
            throw error
        }
        shared.withLock { $0.replayBuffers.append(replay) }
    }

    /// A replay buffer's own encoders, as a movie without a file (LiveStreamOutput's way).
    func startWithoutMovie(_ replay: ReplayBuffer, running: Running) throws {
        var setup = try running.context.liveStreams(preset: replay.preset ?? running.context.configuration.preset,
                                                    live: [LiveOutput(replay: replay)])
        setup.limits.minFreeDiskSpace = running.context.configuration.limits.minFreeDiskSpace  // for its saves
        guard CaptureSession.addWithoutMovie(setup, running: running) else {
            throw ReelError.invalidInput("the session has ended: start it again before adding a replay buffer")
        }
    }

    /// Runs `setup`'s encoders (a movie without a file) in the session, handing the recorder to `attach`
    /// first; false when the session has ended.
    static func addWithoutMovie(_ setup: MovieRecorder.Setup, running: Running,
                                attach: (MovieRecorder) -> Void = { _ in }) -> Bool {
        let slots = running.paced ? MovieRecorder.livePictureQueue + 2 : 2
        running.buffer.addSlots(.video, count: slots)
        let recorder = MovieRecorder(setup: setup, buffer: running.buffer, paced: running.paced,
                                     readerDrops: running.engine.readerDropCount, progress: { _ in },
                                     segmentEvents: running.outputEvents)
        attach(recorder)
        return running.engine.add(recorder, slots: slots)
    }

    /// The replay buffers of the running (or last) recording: the configuration's, then those added.
    public var replayBuffers: [ReplayBuffer] { shared.withLock { $0.replayBuffers } }

    /// Writes the last `seconds` (nil: all held) of the session's replay buffer (its newest, when it has
    /// several) to a movie at `path`: see `ReplayBuffer.saveAndWait(to:seconds:overwrite:)`. Throws
    /// `ReelError.invalidInput` when the session has no replay buffer.
    @available(*, noasync, message: "use saveReplay(to:seconds:overwrite:) from async code")
    public func saveReplayAndWait(to path: String, seconds: Double? = nil, overwrite: Bool = false) throws -> ReplaySave {
        try newestReplayBuffer().saveAndWait(to: path, seconds: seconds, overwrite: overwrite)
    }

    /// The async form of `saveReplayAndWait(to:seconds:overwrite:)`.
    public func saveReplay(to path: String, seconds: Double? = nil, overwrite: Bool = false) async throws -> ReplaySave {
        try await newestReplayBuffer().save(to: path, seconds: seconds, overwrite: overwrite)
    }

    private func newestReplayBuffer() throws -> ReplayBuffer {
        guard let replay = replayBuffers.last else {
            throw ReelError.invalidInput("save-replay: this recording keeps no replay buffer: start it with --replay-buffer SECONDS")
        }
        return replay
    }
}
