import FoundationEssentials
import Glibc

/// What a press produced: a photo (a tap, shorter than the hold threshold) or a movie (a hold).
public struct CaptureOutcome: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable { case photo, movie }

    public var kind: Kind
    public var photo: String?
    public var movie: String?
    public var recording: RecordingResult
}

/// "Tap = photo, hold = video", as the seed camera app does, by ShutterPolicy's rule: recording starts on
/// press; a tap keeps only a photo of the first frame (and no movie), a hold keeps the movie (and, if asked,
/// the first-frame still too). The photo is written to BASENAME.jpg as soon as the first frame arrives (a
/// tap's photo is on disk before the finger comes up); a hold removes it.
public final class PressCapture: Sendable {
    public let basename: String
    public let policy: ShutterPolicy
    public var holdThreshold: Double { policy.holdThreshold }
    /// The session the press records with (for a control socket, or outputs of your own).
    public let session = CaptureSession()
    private let configuration: RecordingConfiguration
    private let keptStill: StillRequest?
    /// The first frame as the tap's photo (JPEG), and as the hold's still in the format asked for.
    private let firstFrame: StillRequest
    private let firstFrameForHold: StillRequest?

    /// Seconds a hold threshold may be (ShutterPolicy's).
    public static var holdThresholdRange: ClosedRange<Double> { ShutterPolicy.holdThresholdRange }
    public static var defaultHoldThreshold: Double { ShutterPolicy.defaultHoldThreshold }

    public var photoPath: String { basename + ".jpg" }
    public var moviePath: String { basename + ".mov" }

    /// `configuration.outputPath` is replaced by BASENAME.mov; its `firstFrameStill`, if any, is the still
    /// kept beside a movie after a hold.
    public init(basename: String, holdThreshold: Double = PressCapture.defaultHoldThreshold, configuration: RecordingConfiguration) throws {
        self.policy = try ShutterPolicy(holdThreshold: holdThreshold)
        self.basename = basename
        keptStill = configuration.firstFrameStill
        let quality = configuration.firstFrameStill?.quality ?? StillRequest.defaultQuality
        // The first frame is always written as the tap's photo, in place at once: a hold removes it.
        let base = URL(fileURLWithPath: basename)
        func hidden(_ suffix: String) -> String {
            base.deletingLastPathComponent().appendingPathComponent(".\(base.lastPathComponent).\(suffix)").path
        }
        firstFrame = StillRequest(path: basename + ".jpg", quality: quality, overwrite: true)
        firstFrameForHold = configuration.firstFrameStill.map {
            StillRequest(path: hidden("hold." + URL(fileURLWithPath: $0.path).pathExtension), quality: quality, overwrite: true)
        }
        var recording = configuration
        recording.outputPath = basename + ".mov"
        recording.firstFrameStill = firstFrame
        recording.hiddenFirstFrameStills = firstFrameForHold.map { [$0] } ?? []
        self.configuration = recording
        if !configuration.overwrite && FileManager.default.fileExists(atPath: photoPath) {
            throw ReelError(.outputExists, "\(photoPath) already exists: choose another name or allow overwriting")
        }
        try keptStill?.validate()
    }

    public var currentState: CaptureSession.State { session.currentState }

    /// Starts recording (the finger goes down).
    public func beginPress(events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws {
        try session.start(configuration, events: events)
    }

    /// The finger comes up: the recording stops and is finalized; `outcome()` then decides photo or movie.
    public func endPress() { session.stop() }

    /// Waits for the recording to end (by `endPress`, a limit or the input) and keeps the photo or the movie.
    public func outcome() async throws -> CaptureOutcome {
        decide(await session.finished())
    }

    /// The blocking form of `outcome()`, for threads outside Swift concurrency.
    public func waitForOutcome() throws -> CaptureOutcome {
        decide(session.waitUntilFinished())
    }

    private func decide(_ result: RecordingResult) -> CaptureOutcome {
        var recording = result
        recording.still = nil
        let holdPath = firstFrameForHold?.path
        defer { if let holdPath { unlink(holdPath) } }
        guard result.recordedSuccessfully, result.still != nil else {
            if result.still != nil { unlink(photoPath) }
            return CaptureOutcome(kind: .movie, photo: nil, movie: nil, recording: recording)
        }
        if policy.press(recordedSeconds: result.duration) == .tap {
            unlink(moviePath)
            // The movie is gone: the result describes the photo that exists instead.
            var info = stat()
            recording.output = photoPath
            recording.bytes = stat(photoPath, &info) == 0 ? Int64(info.st_size) : 0
            recording.fragments = nil
            recording.finalizationBytes = nil
            return CaptureOutcome(kind: .photo, photo: photoPath, movie: nil, recording: recording)
        }
        unlink(photoPath)
        if let keptStill, let holdPath, FileSystem.moveIntoPlace(holdPath, keptStill.path) == 0 { recording.still = keptStill.path }
        return CaptureOutcome(kind: .movie, photo: nil, movie: moviePath, recording: recording)
    }
}
