import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 18 (part): a recording that fails mid-way (an encoder error, injected through an internal hook the
/// command line cannot reach) keeps what it wrote in fragments, says so, and is still `failed`.
@Suite(.serialized) struct FailedRecordingTests {
    static func configuration(_ path: String, fragments: Double) throws -> RecordingConfiguration {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        return RecordingConfiguration(
            outputPath: path, video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0"),
            audio: try DeviceSpec(parsing: "lavfi:sine?realtime=0"), preset: preset, limits: RecordingLimits(maxDuration: 10),
            fragmentInterval: fragments)
    }

    @Test func aFailureKeepsTheCompleteFragments() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/failing.mov"
        MovieRecorder.injectedFailures.withLock { $0[path] = 70 }
        defer { MovieRecorder.injectedFailures.withLock { $0[path] = nil } }
        let result = try await CaptureSession().record(try Self.configuration(path, fragments: 0.5))
        #expect(result.stopReason == .failed && !result.recordedSuccessfully)
        #expect(result.error?.contains("injected") == true && result.error?.contains("kept in \(path)") == true, "\(result.error ?? "")")
        #expect(FileManager.default.fileExists(atPath: path))
        // Every picture before the failure that reached the file, in order, decoding cleanly in two readers.
        let numbers = try TestInputs.frameNumbers(path)
        #expect(numbers.count >= 45 && numbers.count <= 70 && numbers == Array(0..<numbers.count), "\(numbers)")
        #expect(result.videoFrames == numbers.count && result.bytes > 0)
        #expect(try CleanDecode.problems(in: path).isEmpty)
        let gstreamer = try IndependentReaders.gstreamer(path)
        #expect(gstreamer.videoFrames == numbers.count && gstreamer.problems.isEmpty, "\(gstreamer)")
    }

    /// Without fragments (or written under a hidden name, as transcodes are) nothing is left.
    @Test func withoutFragmentsAFailureLeavesNothing() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/plain.mov"
        MovieRecorder.injectedFailures.withLock { $0[path] = 40 }
        defer { MovieRecorder.injectedFailures.withLock { $0[path] = nil } }
        let result = try await CaptureSession().record(try Self.configuration(path, fragments: 0))
        #expect(result.stopReason == .failed && !result.recordedSuccessfully && result.bytes == 0)
        #expect(Scratch.files(in: folder).isEmpty)
    }
}
