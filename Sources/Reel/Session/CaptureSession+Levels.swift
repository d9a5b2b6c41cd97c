/// The session's sound meter (see LevelFeed, AudioLevels): every session with a live sound input (a
/// microphone, a test source; not a file being transcoded) measures it as captured.
extension CaptureSession {
    /// The levels as they come, about ten a second (the newest kept when the reader falls behind), until the
    /// running session ends; a stream asked for when no session runs ends at once.
    public func audioLevels() -> AsyncStream<AudioLevels> {
        let (stream, continuation) = AsyncStream.makeStream(of: AudioLevels.self, bufferingPolicy: .bufferingNewest(1))
        let added = shared.withLock { shared -> Bool in
            guard shared.running != nil || { if case .starting = shared.phase { return true } else { return false } }() else { return false }
            shared.live.levelStreams.append(continuation)
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// The latest levels, or nil (no sound, not running, or not yet 100 ms of it).
    public var currentLevels: AudioLevels? { shared.withLock { $0.running != nil ? $0.live.levels : nil } }

    static func alarmFeed(_ rules: [AlarmRule], engine: SessionEngine, events: @escaping @Sendable (RecordingEvent) -> Void) -> AlarmFeed {
        AlarmFeed(rules: rules, origin: { [weak engine] in engine?.timelineOrigin ?? 0 }) { change in
            switch change {
            case .started(let alarm): events(.alarmStarted(alarm))
            case .ended(let alarm): events(.alarmEnded(alarm))
            }
        }
    }

    func levelFeed(engine: SessionEngine, events: @escaping @Sendable (RecordingEvent) -> Void) -> LevelFeed {
        let shared = self.shared
        return LevelFeed(origin: { [weak engine] in engine?.timelineOrigin ?? 0 }) { levels in
            let streams = shared.withLock { shared in
                shared.live.levels = levels
                return shared.live.levelStreams
            }
            for stream in streams { stream.yield(levels) }
            events(.levels(levels))
        }
    }
}
