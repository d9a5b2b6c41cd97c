import FoundationEssentials
import SystemSupport

/// A movie of a session, as an AVCaptureMovieFileOutput: its own preset (it is scaled from the capture),
/// limits, segments, pause, encoders and result. Add it with `CaptureSession.addOutput(_:)`: before the
/// session starts, it starts with the session's first picture (as the session's own movies and tiers do);
/// while the session runs, with the next picture it captures (its time zero). It can be paused and stopped
/// on its own while the session and its other movies go on, and ends with the session at the latest.
///
/// The session's inputs, orientation and fragment interval apply; everything in `limits` (duration, size,
/// free-space floor) is the movie's own.
public final class MovieOutput: Sendable {
    public let outputPath: String
    public let preset: Preset
    public let limits: RecordingLimits
    /// Consecutive files instead of one (outputPath is then their name pattern, see Segmentation).
    public let segmentation: Segmentation?
    /// The movie once its session runs it; before that, what was asked of it (applied when it starts).
    private struct State {
        var recorder: MovieRecorder?
        var pausedBeforeStart = false
        var stoppedBeforeStart = false
    }
    private let state = Locked(State())
    var recorder: MovieRecorder? { state.withLock { $0.recorder } }

    public init(outputPath: String, preset: Preset, limits: RecordingLimits = RecordingLimits(), segmentation: Segmentation? = nil) {
        self.outputPath = outputPath
        self.preset = preset
        self.limits = limits
        self.segmentation = segmentation
    }

    /// The session runs it: a pause asked before takes effect from its first picture on.
    func attach(_ running: MovieRecorder) {
        let paused = state.withLock { state in
            state.recorder = running
            return state.pausedBeforeStart
        }
        if paused { running.setPaused(true) }
    }

    /// Stopped before its session ran it: the session leaves it out, and nothing is written.
    var wasStoppedBeforeStart: Bool { state.withLock { $0.recorder == nil && $0.stoppedBeforeStart } }

    /// Stops this movie (it is finalized with `stopped`); the session goes on. Before its session starts it
    /// takes the movie out: nothing is recorded. Nothing happens once it has finished.
    public func stop() {
        let running = state.withLock { state in
            if state.recorder == nil { state.stoppedBeforeStart = true }
            return state.recorder
        }
        running?.requestStop()
    }

    /// Pauses this movie (AVCaptureMovieFileOutput's pauseRecording): nothing is written until `resume()`,
    /// and the movie's timeline then goes on without a hole, with a keyframe. The session keeps running.
    /// Before the session starts, the movie starts paused.
    public func pause() { setPaused(true) }
    public func resume() { setPaused(false) }

    private func setPaused(_ paused: Bool) {
        let running = state.withLock { state in
            if state.recorder == nil { state.pausedBeforeStart = paused }
            return state.recorder
        }
        running?.setPaused(paused)
    }

    /// Whether the movie is paused now (or will start paused).
    public var isPaused: Bool {
        let (running, paused) = state.withLock { ($0.recorder, $0.pausedBeforeStart) }
        return running?.isPaused ?? paused
    }

    /// The latest progress (about twice a second while recording), nil before the first or when never added.
    public var progress: RecordingProgress? { recorder?.latestProgress }

    /// The result once the movie is finalized, else nil.
    public var result: RecordingResult? { recorder?.result }

    /// Blocks the calling thread until the movie is finalized (not for use on Swift's cooperative pool).
    @available(*, noasync, message: "use finished() from async code")
    public func waitUntilFinished() throws -> RecordingResult {
        let running = try startedRecorder()
        return running.waitForMovieResult()
    }

    /// Suspends until the movie is finalized (by `stop()`, a limit, or the session's end).
    public func finished() async throws -> RecordingResult {
        let running = try startedRecorder()
        return await withCheckedContinuation { continuation in
            running.whenFinished { continuation.resume(returning: $0) }
        }
    }

    private func startedRecorder() throws -> MovieRecorder {
        let (running, stopped) = state.withLock { ($0.recorder, $0.stoppedBeforeStart) }
        if let running { return running }
        throw ReelError.runtime(stopped ? "the movie output \(outputPath) was stopped before its session started: nothing was recorded"
                                        : "the movie output \(outputPath) has not started: add it to a session and start the session")
    }
}
