import FFmpegCore

/// Publishes the sound's levels on the session's thread: the readers meter the source's samples as they come
/// (AudioFrameSink, LevelMeter) and each update rides on a block of samples (`CapturedItem.levels`); this
/// output hands it to `publish` (the session's status, `audioLevels()` streams and events), ten a second.
/// A companion output: it never ends the session and holds no sample.
final class LevelFeed: SessionOutput {
    private let publish: @Sendable (AudioLevels) -> Void

    init(publish: @escaping @Sendable (AudioLevels) -> Void) {
        self.publish = publish
    }

    var role: SessionOutputRole { .companion }
    func start() {}
    func wants(_ type: MediaType) -> Bool { type == .audio }
    var isDone: Bool { false }
    func end(_ ending: SessionEngine.Ending) {}

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        if let levels = item.levels { publish(levels) }
    }
}
