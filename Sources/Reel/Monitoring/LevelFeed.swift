import FFmpegCore

/// Publishes the sound's levels on the session's thread: the readers meter the source's samples as they come
/// (AudioFrameSink, LevelMeter) and each update rides on a block of samples (`CapturedItem.levels`); this
/// output hands it to `publish` (the session's status, `audioLevels()` streams and events), ten a second.
/// A companion output: it never ends the session and holds no sample.
final class LevelFeed: SessionWatcher {
    private let publish: @Sendable (AudioLevels) -> Void
    /// The timeline's zero on the session clock (the first picture), read on the session's thread.
    private let origin: @Sendable () -> Double

    init(origin: @escaping @Sendable () -> Double, publish: @escaping @Sendable (AudioLevels) -> Void) {
        self.origin = origin
        self.publish = publish
    }

    func wants(_ type: MediaType) -> Bool { type == .audio }
    func end(_ ending: SessionEngine.Ending) {}

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        guard var levels = item.levels else { return }
        levels.time -= origin()
        publish(levels)
    }
}
