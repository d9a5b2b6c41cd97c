import Foundation
@testable import Reel
import ReelTestSupport

/// Fast recordings from lavfi sources that run as fast as the encoder (realtime=0).
enum FastRecording {
    static let video = try! DeviceSpec(parsing: "lavfi:testsrc2?realtime=0")
    static let audio = try! DeviceSpec(parsing: "lavfi:sine?realtime=0")

    static func configuration(_ output: String, preset: String = "352x288", limits: RecordingLimits,
                              video: DeviceSpec? = FastRecording.video,
                              audio: DeviceSpec? = FastRecording.audio) throws -> RecordingConfiguration {
        RecordingConfiguration(outputPath: output, video: video, audio: audio,
                               preset: try PresetLibrary.preset(named: preset), limits: limits)
    }

    static func record(_ configuration: RecordingConfiguration) async throws -> RecordingResult {
        try await CaptureSession().record(configuration)
    }
}
