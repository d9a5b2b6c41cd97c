import Foundation
@testable import Reel
import ReelTestSupport
import Testing

@Suite(.serialized) struct TranscodeTests {
    /// Makes a source file with the ffmpeg CLI (an independent encoder).
    static func makeSource(_ path: String, _ arguments: [String]) throws {
        let result = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments + [path])
        guard result.status == 0 else { throw PictureComparison.SetupFailure(result.standardError) }
    }

    @Test func hd1080ToHD720KeepsDurationAndTone() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/source.mp4"
        try Self.makeSource(source, ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i",
                                     "sine=frequency=1000:sample_rate=44100", "-t", "4", "-c:v", "libx264", "-preset", "ultrafast",
                                     "-c:a", "aac", "-shortest"])
        let output = "\(folder)/out.mov"
        let result = try await Transcoder.transcode(.init(inputPath: source, outputPath: output,
                                                          preset: PresetLibrary.preset(named: "720p")))
        #expect(result.stopReason == .inputEnded && result.recordedSuccessfully)
        let movie = try MediaInspection(path: output)
        #expect(movie.width == 1280 && movie.height == 720 && movie.videoCodec == "h264" && movie.audioCodec == "aac")
        #expect(movie.videoFrames == 120)
        #expect(abs(movie.videoDuration - 4) <= 1.0 / 30, "video \(movie.videoDuration) s")
        #expect(movie.audioSampleRate == 48000)
        let steady = Array(movie.audioPreview.dropFirst(4800).dropLast(4800))
        let frequency = ToneAnalysis.frequency(of: steady, sampleRate: movie.audioSampleRate)
        #expect(abs(frequency - 1000) < 10, "tone \(frequency) Hz")
    }

    /// A file whose pictures start half a second after its sound (as an edited clip can): the movie's
    /// timeline is the file's from its start, so its first picture is shown from there and every picture
    /// stays where it was against the sound — picture N at 0.5 s + N/30, in slot 15 + N. (The movie takes its
    /// pictures from the encoder of its preset, whose timeline starts at the input's start too.)
    @Test func picturesThatStartAfterTheSoundStayInPlace() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/late.mov"
        try Self.makeSource(source, ["-itsoffset", "0.5", "-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30") + ",trim=end=2",
                                     "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                     "-map", "0:v", "-map", "1:a", "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast",
                                     "-qp", "0", "-c:a", "aac"])
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        let output = "\(folder)/out.mov"
        let result = try await Transcoder.transcode(.init(inputPath: source, outputPath: output, preset: preset))
        #expect(result.stopReason == .inputEnded && result.recordedSuccessfully, "\(result)")
        let numbers = try TestInputs.frameNumbers(output)
        #expect(numbers.count == 75, "2.5 s of pictures: \(numbers.count)")
        #expect(Array(numbers.prefix(16)) == Array(repeating: 0, count: 16), "the first picture from the start: \(numbers.prefix(20))")
        #expect(Array(numbers.dropFirst(15)) == Array(0..<60), "picture N in slot 15 + N: \(numbers)")
        #expect(abs(Double(result.audioSamples) / 48_000 - 3) < 0.05, "the sound from the start: \(result.audioSamples) samples")
    }

    @Test func aspectRatioIsKeptWithBlackBars() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/square.mp4"
        try Self.makeSource(source, ["-f", "lavfi", "-i", "color=red:size=480x480:rate=30", "-t", "1", "-c:v", "libx264",
                                     "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let output = "\(folder)/wide.mov"
        _ = try await Transcoder.transcode(.init(inputPath: source, outputPath: output, preset: PresetLibrary.preset(named: "352x288")))
        let pixels = try PictureComparison.rgb(output)
        #expect(pixels.count == 352 * 288 * 3)
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let offset = (y * 352 + x) * 3
            return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
        }
        // A square picture in a 352x288 frame: 288x288 in the middle, black bars of 32 on each side.
        #expect(pixel(176, 144).0 > 200 && pixel(176, 144).1 < 60, "centre is the red picture")
        for (x, y) in [(10, 144), (341, 144)] {
            let (r, g, b) = pixel(x, y)
            #expect(r < 30 && g < 30 && b < 30, "bar at \(x) is not black: \(r),\(g),\(b)")
        }
    }

    @Test func videoOnlyAudioOnlyRotatedAndTruncatedInputs() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try PresetLibrary.preset(named: "low")
        let videoOnly = "\(folder)/v.mp4", audioOnly = "\(folder)/a.m4a", full = "\(folder)/full.mkv"
        try Self.makeSource(videoOnly, ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-t", "2", "-c:v", "libx264",
                                        "-preset", "ultrafast"])
        try Self.makeSource(audioOnly, ["-f", "lavfi", "-i", "sine", "-t", "2", "-c:a", "aac"])
        try Self.makeSource(full, ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-f", "lavfi", "-i", "sine", "-t", "4",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"])
        let v = try await Transcoder.transcode(.init(inputPath: videoOnly, outputPath: "\(folder)/v.mov", preset: preset))
        #expect(v.recordedSuccessfully && v.audioSamples == 0 && v.videoFrames == 30)
        let a = try await Transcoder.transcode(.init(inputPath: audioOnly, outputPath: "\(folder)/a.mov", preset: preset))
        #expect(a.recordedSuccessfully && a.videoFrames == 0 && abs(Double(a.audioSamples) / 22050 - 2) < 0.05)

        // A portrait recording keeps its rotation through a transcode.
        var portrait = try FastRecording.configuration("\(folder)/portrait.mov", limits: RecordingLimits(maxDuration: 0.5))
        portrait.orientation = .portrait
        _ = try await FastRecording.record(portrait)
        _ = try await Transcoder.transcode(.init(inputPath: portrait.outputPath, outputPath: "\(folder)/p.mov", preset: preset))
        #expect(try MediaInspection(path: "\(folder)/p.mov").rotation == 90)

        // Cut in half: converted up to where it stops, and usable.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: "\(folder)/half.mkv"))
        let half = try await Transcoder.transcode(.init(inputPath: "\(folder)/half.mkv", outputPath: "\(folder)/half.mov", preset: preset))
        #expect(half.recordedSuccessfully && half.stopReason == .inputEnded)
        #expect(half.duration > 0.5 && half.duration < 3.5, "partial duration \(half.duration)")
        #expect(try MediaInspection(path: "\(folder)/half.mov").videoFrames == half.videoFrames)

        // Unreadable: an input error before anything is written.
        try Data(repeating: 0x47, count: 5000).write(to: URL(fileURLWithPath: "\(folder)/junk.mp4"))
        await #expect(throws: ReelError.self) {
            _ = try await Transcoder.transcode(.init(inputPath: "\(folder)/junk.mp4", outputPath: "\(folder)/junk.mov", preset: preset))
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/junk.mov"))
    }
}
