import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 14: errors a caller can branch on, whose messages name the problem and no CLI option.
@Suite struct ReelErrorKindTests {
    func startError(_ configuration: RecordingConfiguration) -> ReelError? {
        do {
            try CaptureSession().start(configuration)
            return nil
        } catch {
            return error as? ReelError
        }
    }

    @Test func startFailuresSayWhatKindOfProblem() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try PresetLibrary.preset(named: "352x288")
        let video = try DeviceSpec(parsing: "lavfi:testsrc2?realtime=0")
        func configuration(_ output: String = "out.mov", video: DeviceSpec? = video, limits: RecordingLimits = RecordingLimits(maxDuration: 1)) -> RecordingConfiguration {
            RecordingConfiguration(outputPath: "\(folder)/\(output)", video: video, audio: nil, preset: preset, limits: limits)
        }
        #expect(startError(configuration(video: try DeviceSpec(parsing: "v4l2:/dev/video-none")))?.kind == .deviceNotFound)
        #expect(startError(configuration(video: try DeviceSpec(parsing: "file:\(folder)/missing.mp4")))?.kind == .deviceNotFound)
        #expect(FileManager.default.createFile(atPath: "\(folder)/taken.mov", contents: Data("x".utf8)))
        let exists = startError(configuration("taken.mov"))
        #expect(exists?.kind == .outputExists && exists?.isInvalidInput == true)
        #expect(exists?.message.contains("--") == false, "no CLI option in a library message: \(exists?.message ?? "")")
        #expect(startError(configuration(limits: RecordingLimits(maxDuration: 1, maxFileSize: 40_000)))?.kind == .limitImpossible(.maxFileSize))
        let floor = startError(configuration(limits: RecordingLimits(maxDuration: 1, minFreeDiskSpace: Int64.max / 4)))
        #expect(floor?.kind == .limitImpossible(.minFreeDiskSpace))
        #expect(floor?.message.contains("--") == false, "\(floor?.message ?? "")")
        #expect(Scratch.files(in: folder) == ["taken.mov"], "nothing written")
    }

    @Test func theCommandLineAddsTheOption() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: "\(folder)/taken.mov", contents: Data("x".utf8)))
        let exists = try Processes.reel(["record", "taken.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                         "--max-duration", "1"], currentDirectory: folder)
        #expect(exists.status == 2 && exists.standardError.contains("already exists") && exists.standardError.contains("(--overwrite)"),
                "\(exists.standardError)")
        let floor = try Processes.reel(["record", "x.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                        "--max-duration", "1", "--min-free", "1000T"], currentDirectory: folder)
        #expect(floor.status == 2 && floor.standardError.contains("(--min-free)"), "\(floor.standardError)")
    }
}
