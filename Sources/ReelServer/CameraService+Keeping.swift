import FoundationEssentials
@_spi(ReelTools) import Reel

/// The camera's replay buffer (`reel serve --replay-buffer S`: POST /api/replay saves its last seconds into the
/// recordings folder) and triggered movies (`--trigger`: event-….mov there, around motion or sound), with their
/// events on /api/events as on the control socket.
extension CameraService {
    struct Keeping: Sendable {
        var replaySeconds: Double?
        var replayBytes = ReplayBuffer.defaultMaxBytes
        var triggers: TriggeredRecording?

        /// Each session of the camera gets a buffer of its own (one encoder feeds it and the triggered movies).
        func apply(to capture: inout CaptureInputs, folder: String) {
            capture.replayBuffer = replaySeconds.map { ReplayBuffer(seconds: $0, maxBytes: replayBytes) }
            capture.triggers = triggers
            capture.triggeredMovies = folder + "/event-{date}-{time}.mov"
        }
    }

    /// Saves the replay buffer's last `seconds` (nil: all it holds) as replay-….mov in the recordings folder.
    func saveReplay(seconds: Double?) throws -> ReplaySave {
        let controller = try running()
        guard keeping.replaySeconds != nil else {
            throw ReelError.invalidInput("this camera keeps no replay buffer: start reel serve with --replay-buffer SECONDS")
        }
        var save = try controller.saveReplayAndWait(to: folder.newPath("replay", extension: "mov"), seconds: seconds)
        // The API names files in the recordings folder, never the server's paths.
        save.path = URL(fileURLWithPath: save.path).lastPathComponent
        thumbnails.prepare(save.path)
        events.publish("replaySaved", json: CameraService.json(save))
        return save
    }

    /// Trigger events and finished triggered movies, for the page.
    func publishKept(_ event: RecordingEvent) {
        switch event {
        case .triggerStarted(let trigger): events.publish("triggerStarted", json: CameraService.json(trigger))
        case .triggerEnded(let trigger): events.publish("triggerEnded", json: CameraService.json(trigger))
        case .triggeredMovie(var movie):
            movie.path = URL(fileURLWithPath: movie.path).lastPathComponent
            if movie.error == nil { thumbnails.prepare(movie.path) }
            events.publish("triggeredMovie", json: CameraService.json(movie))
        default: break
        }
    }
}
