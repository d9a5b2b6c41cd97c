import FFmpegCore
import FoundationEssentials
import Glibc

/// Converts any FFmpeg-readable file to an H.264/AAC QuickTime movie at a preset: the recording pipeline
/// with the file as its input (one reader routing both streams), so it has the same limits, stop reasons,
/// temporary-name writing and results. Pictures keep their aspect ratio, fitted inside the preset's size with
/// black bars (letterbox/pillarbox) rather than stretched or cropped; the rotation carries over.
public enum Transcoder {
    public struct Request: Sendable {
        public var inputPath: String
        public var outputPath: String
        public var preset: Preset
        public var limits: RecordingLimits
        public var overwrite: Bool
        public var firstFrameStill: StillRequest?
        /// Further movies from the same decode, each at its own preset.
        public var tiers: [MovieTier]
        /// Consecutive files instead of one (see Segmentation).
        public var segmentation: Segmentation?

        public init(inputPath: String, outputPath: String, preset: Preset, limits: RecordingLimits = RecordingLimits(),
                    overwrite: Bool = false, firstFrameStill: StillRequest? = nil, tiers: [MovieTier] = [],
                    segmentation: Segmentation? = nil) {
            self.segmentation = segmentation
            self.inputPath = inputPath
            self.outputPath = outputPath
            self.preset = preset
            self.limits = limits
            self.overwrite = overwrite
            self.firstFrameStill = firstFrameStill
            self.tiers = tiers
        }
    }

    /// The recording configuration for a request. Nothing is read yet: the file is opened once, when the
    /// recording starts, which then checks that it has something to transcode (so a named pipe works).
    public static func configuration(for request: Request) -> RecordingConfiguration {
        let source = DeviceSpec(kind: .file, target: request.inputPath)
        var configuration = RecordingConfiguration(
            outputPath: request.outputPath, video: source, audio: source, preset: request.preset,
            limits: request.limits, overwrite: request.overwrite, firstFrameStill: request.firstFrameStill)
        configuration.takesTracksFromInput = true
        configuration.tiers = request.tiers
        configuration.segmentation = request.segmentation
        // A transcode can always be run again: its output appears only when complete.
        configuration.writesUnderFinalName = false
        return configuration
    }

    /// Transcodes and returns the result (`inputEnded` when the whole input was converted).
    public static func transcode(_ request: Request, events: @escaping @Sendable (RecordingEvent) -> Void = { _ in })
        async throws -> RecordingResult {
        try await CaptureSession().record(configuration(for: request), events: events)
    }
}
