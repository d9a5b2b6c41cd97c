import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 14: the seam for a live view. A preview gets small JPEG pictures a few times a second while the
/// movie records every frame; its stream ends with the session.
@Suite struct PreviewOutputTests {
    @Test func previewPicturesWhileRecording() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/movie.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: try PresetLibrary.preset(named: "720p"),
            limits: RecordingLimits(maxDuration: 2))
        let session = CaptureSession()
        let preview = try PreviewOutput(width: 160, framesPerSecond: 5)
        session.addOutput(preview)
        try session.start(configuration)
        var pictures: [PreviewOutput.Picture] = []
        for await picture in preview.pictures { pictures.append(picture) }
        let result = await session.finished()
        // Drops depend on how busy the machine is (a live source cannot wait); the movie still has a picture
        // in every slot. That a preview costs the recording nothing is the benchmark's to measure.
        #expect(result.recordedSuccessfully && result.videoFrames == 60, "\(result)")
        // At most 5 a second over 2 s (the first comes with the first picture); fewer when the machine is too
        // busy to encode them (a preview skips, it never queues), but more than the first.
        #expect((2...12).contains(pictures.count), "\(pictures.count) previews")
        for picture in pictures {
            #expect(picture.width == 160 && picture.height == 90)
            #expect(picture.jpeg.starts(with: [0xFF, 0xD8]) && picture.jpeg.count > 500)
        }
        let times = pictures.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 0.19 }, "at most 5 a second: \(times)")
        // The picture decodes: a JPEG of 160x90.
        try Data(pictures[0].jpeg).write(to: URL(fileURLWithPath: "\(folder)/p.jpg"))
        let stream = try #require(try FFprobe.stream("\(folder)/p.jpg", type: "video"))
        #expect(stream["width"] as? Int == 160 && stream["height"] as? Int == 90)
    }

    @Test func badPreviewSettingsAreRefused() {
        #expect(throws: ReelError.self) { try PreviewOutput(width: 8) }
        #expect(throws: ReelError.self) { try PreviewOutput(framesPerSecond: 100) }
        #expect(throws: ReelError.self) { try PreviewOutput(quality: 0) }
    }
}
