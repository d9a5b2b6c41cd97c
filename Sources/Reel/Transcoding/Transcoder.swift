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

        public init(inputPath: String, outputPath: String, preset: Preset, limits: RecordingLimits = RecordingLimits(),
                    overwrite: Bool = false, firstFrameStill: StillRequest? = nil) {
            self.inputPath = inputPath
            self.outputPath = outputPath
            self.preset = preset
            self.limits = limits
            self.overwrite = overwrite
            self.firstFrameStill = firstFrameStill
        }
    }

    /// The recording configuration for a request, and the input's duration (for progress), after checking
    /// that the input can be read and has something to transcode.
    public static func configuration(for request: Request) throws -> (RecordingConfiguration, inputDuration: Double?) {
        let description = try MediaProbe.describe(path: request.inputPath)
        // Cover art is a picture, not a video track: an album track becomes an audio-only movie.
        let hasVideo = description.streams.contains { $0.type == "video" && $0.attachedPicture != true }
        let hasAudio = description.streams.contains { $0.type == "audio" }
        guard hasVideo || hasAudio else {
            throw ReelError.invalidInput("\(request.inputPath) has neither video nor audio to transcode")
        }
        let source = DeviceSpec(kind: .file, target: request.inputPath)
        let rotation = description.streams.first { $0.type == "video" && $0.attachedPicture != true }?.rotation ?? 0
        let orientation = Orientation.allCases.first { $0.clockwiseRotation == rotation } ?? .landscapeRight
        var configuration = RecordingConfiguration(
            outputPath: request.outputPath, video: hasVideo ? source : nil, audio: hasAudio ? source : nil,
            preset: request.preset, limits: request.limits, orientation: orientation, overwrite: request.overwrite,
            firstFrameStill: request.firstFrameStill)
        // A transcode can always be run again: its output appears only when complete.
        configuration.writesUnderFinalName = false
        return (configuration, description.duration)
    }

    /// Transcodes and returns the result (`inputEnded` when the whole input was converted).
    public static func transcode(_ request: Request, events: @escaping @Sendable (RecordingEvent) -> Void = { _ in })
        async throws -> RecordingResult {
        // Probing the input reads the file: keep it off Swift's cooperative pool.
        let configuration = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<RecordingConfiguration, any Error>) in
            _ = WorkerThread(name: "reel.probe") {
                continuation.resume(with: Result { try Transcoder.configuration(for: request).0 })
            }
        }
        return try await CaptureSession().record(configuration, events: events)
    }
}
