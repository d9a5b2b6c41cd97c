import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 14: a photo while recording, as AVCapturePhotoOutput beside a movie output. The source's pictures
/// carry their own number: each photo must be a picture the movie also holds (the next one after the
/// request), and the movie must hold every picture in between (no frame lost to the photo).
@Suite struct PhotoOutputTests {
    @Test func photosWhileRecordingLoseNoMovieFrame() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        // A live (paced) source, as a camera.
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/movie.mov", video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset, limits: RecordingLimits())
        let session = CaptureSession()
        let photo = PhotoOutput()
        await #expect(throws: ReelError.self) { try await photo.capture(to: StillRequest(path: "\(folder)/early.jpg")) }
        session.addOutput(photo)
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(600))
        var paths: [String] = []
        var latencies: [Double] = []
        for index in 0..<3 {
            let asked = Date()
            paths.append(try await photo.capture(to: StillRequest(path: "\(folder)/photo\(index).\(index == 2 ? "png" : "jpg")")))
            latencies.append(Date().timeIntervalSince(asked))
            try await Task.sleep(for: .milliseconds(300))
        }
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.stopReason == .stopped, "\(result)")
        #expect(result.droppedFrames == 0)
        let movie = try TestInputs.frameNumbers("\(folder)/movie.mov")
        #expect(movie.count >= 30 && movie.count == result.videoFrames)
        // Every picture from the first to the last is in the movie: the photos took none away.
        let first = try #require(movie.first), last = try #require(movie.last)
        #expect(Set(movie) == Set(first...last), "pictures missing from the movie: \(Set(first...last).subtracting(movie).sorted())")
        let photoNumbers = try paths.map { try #require(try TestInputs.frameNumbers($0).first) }
        #expect(photoNumbers == photoNumbers.sorted() && Set(photoNumbers).count == 3, "photos \(photoNumbers)")
        for number in photoNumbers { #expect(movie.contains(number), "photo of picture \(number) is not a movie picture") }
        #expect(Atoms.pngSignature(path: paths[2]))
        let size = try #require(try FFprobe.stream(paths[0], type: "video"))
        #expect(size["width"] as? Int == 128 && size["height"] as? Int == 128)
        // The next picture comes within a frame or two (33 ms at 30 fps) plus the encode; the bound here only
        // says it is the next picture and not the recording's end, on a loaded machine (the benchmark
        // harness measures the latency: ~20 ms at 720p30).
        if RealTimeChecks.make("photo latency") { #expect(latencies.max()! < 2, "photo latencies \(latencies)") }
        // After the session ended, a photo is refused at once.
        await #expect(throws: ReelError.self) { try await photo.capture(to: StillRequest(path: "\(folder)/late.jpg")) }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/late.jpg"))
    }

    @Test func aTranscodeWithATierThroughTheLibrary() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/in.mp4", seconds: 2)
        var configuration = Transcoder.configuration(for: Transcoder.Request(
            inputPath: "\(folder)/in.mp4", outputPath: "\(folder)/main.mov", preset: try PresetLibrary.preset(named: "640x480"),
            tiers: [MovieTier(outputPath: "\(folder)/low.mov", preset: try PresetLibrary.preset(named: "low"))]))
        configuration.fragmentInterval = 0
        let result = try await CaptureSession().record(configuration)
        let outputs = try #require(result.outputs)
        #expect(outputs.map(\.recordedSuccessfully) == [true, true])
        #expect(outputs.map(\.videoFrames) == [60, 30], "30 fps and the low preset's 15 fps")
        #expect(abs(outputs[0].duration - outputs[1].duration) < 0.001)
        #expect(outputs[0].mediaDuration >= .seconds(2) && outputs[0].mediaDuration < .milliseconds(2100))
        #expect(RecordingLimits(maxDuration: .milliseconds(1500)) == RecordingLimits(maxDuration: 1.5))
        #expect(result == outputs[0].withOutputs(outputs))
    }
}

extension RecordingResult {
    func withOutputs(_ outputs: [RecordingResult]) -> RecordingResult {
        var copy = self
        copy.outputs = outputs
        return copy
    }
}
