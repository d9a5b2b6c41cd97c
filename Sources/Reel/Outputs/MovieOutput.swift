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
    private let recorder = Locked<MovieRecorder?>(nil)

    public init(outputPath: String, preset: Preset, limits: RecordingLimits = RecordingLimits(), segmentation: Segmentation? = nil) {
        self.outputPath = outputPath
        self.preset = preset
        self.limits = limits
        self.segmentation = segmentation
    }

    func attach(_ running: MovieRecorder) { recorder.withLock { $0 = running } }

    /// Stops this movie (it is finalized with `stopped`); the session goes on. Nothing happens if it was
    /// never added or has already finished.
    public func stop() { recorder.withLock { $0 }?.requestStop() }

    /// Pauses this movie (AVCaptureMovieFileOutput's pauseRecording): nothing is written until `resume()`,
    /// and the movie's timeline then goes on without a hole, with a keyframe. The session keeps running.
    public func pause() { recorder.withLock { $0 }?.setPaused(true) }
    public func resume() { recorder.withLock { $0 }?.setPaused(false) }

    /// Whether the movie is paused now.
    public var isPaused: Bool { recorder.withLock { $0 }?.isPaused ?? false }

    /// The latest progress (about twice a second while recording), nil before the first or when never added.
    public var progress: RecordingProgress? { recorder.withLock { $0 }?.latestProgress }

    /// The result once the movie is finalized, else nil.
    public var result: RecordingResult? { recorder.withLock { $0 }?.result }

    /// Blocks the calling thread until the movie is finalized (not for use on Swift's cooperative pool).
    @available(*, noasync, message: "use finished() from async code")
    public func waitUntilFinished() throws -> RecordingResult {
        guard let running = recorder.withLock({ $0 }) else {
            throw ReelError.runtime("the movie output \(outputPath) has not started: add it to a session and start the session")
        }
        return running.waitForMovieResult()
    }

    /// Suspends until the movie is finalized (by `stop()`, a limit, or the session's end).
    public func finished() async throws -> RecordingResult {
        guard let running = recorder.withLock({ $0 }) else {
            throw ReelError.runtime("the movie output \(outputPath) has not started: add it to a session and start the session")
        }
        return await withCheckedContinuation { continuation in
            running.whenFinished { continuation.resume(returning: $0) }
        }
    }
}
