import Foundation
@testable import Reel
import ReelTestSupport
import Testing

@Suite(.serialized) struct StillTests {
    @Test func firstFrameStillIsCloseToTheSourceFrame() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Lossless reference of the source's first frame at the preset size, tagged BT.709 as the 720p movie is:
        // the JPEG (full-range BT.601) is converted from it, so the two are compared as shown, in RGB.
        let reference = "\(folder)/reference.mkv"
        try #require(try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                                                            "-frames:v", "1", "-c:v", "ffv1", "-color_primaries", "bt709",
                                                            "-color_trc", "bt709", "-colorspace", "bt709", reference]).status == 0)
        var configuration = try FastRecording.configuration("\(folder)/movie.mov", preset: "720p",
                                                            limits: RecordingLimits(maxDuration: 0.5), audio: nil)
        configuration.firstFrameStill = StillRequest(path: "\(folder)/first.jpg")
        let result = try await FastRecording.record(configuration)
        #expect(result.still == "\(folder)/first.jpg")
        let stillPSNR = try PictureComparison.psnr("\(folder)/first.jpg", against: reference, format: "rgb24")
        #expect(stillPSNR >= 40, "first-frame JPEG at default quality: \(stillPSNR) dB")

        // Better than the same frame decoded back out of the H.264 movie. Compared at 352x288, where the movie is
        // BT.601 as JPEG is, so the YUV planes can be compared directly (at 720p a JPEG needs BT.709 converted
        // to BT.601, which no YUV comparison can follow).
        let sdReference = "\(folder)/sd-reference.mkv"
        try #require(try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=352x288:rate=30",
                                                            "-frames:v", "1", "-c:v", "ffv1", sdReference]).status == 0)
        var best = try FastRecording.configuration("\(folder)/movie2.mov", preset: "352x288",
                                                   limits: RecordingLimits(maxDuration: 0.5), audio: nil)
        best.firstFrameStill = StillRequest(path: "\(folder)/best.jpg", quality: 100)
        _ = try await FastRecording.record(best)
        try #require(try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", "\(folder)/movie2.mov", "-frames:v", "1",
                                                            "-c:v", "ffv1", "\(folder)/decoded.mkv"]).status == 0)
        let moviePSNR = try PictureComparison.psnr("\(folder)/decoded.mkv", against: sdReference)
        let bestPSNR = try PictureComparison.psnr("\(folder)/best.jpg", against: sdReference)
        #expect(bestPSNR > moviePSNR, "quality 100 still \(bestPSNR) dB vs movie frame \(moviePSNR) dB")
        print("first-frame still PSNR: \(stillPSNR) dB at default quality (720p, RGB); at 352x288 \(bestPSNR) dB at 100, H.264 first frame \(moviePSNR) dB")
    }

    @Test func pngStillsAndQuality() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try FastRecording.configuration("\(folder)/m.mov", limits: RecordingLimits(maxDuration: 0.2), audio: nil)
        configuration.firstFrameStill = StillRequest(path: "\(folder)/first.png")
        _ = try await FastRecording.record(configuration)
        #expect(Atoms.pngSignature(path: "\(folder)/first.png"))
        var low = configuration
        low.outputPath = "\(folder)/m2.mov"
        low.firstFrameStill = StillRequest(path: "\(folder)/low.jpg", quality: 10)
        _ = try await FastRecording.record(low)
        var high = low
        high.outputPath = "\(folder)/m3.mov"
        high.firstFrameStill = StillRequest(path: "\(folder)/high.jpg", quality: 100)
        _ = try await FastRecording.record(high)
        let lowSize = try #require(try FileManager.default.attributesOfItem(atPath: "\(folder)/low.jpg")[.size] as? Int)
        let highSize = try #require(try FileManager.default.attributesOfItem(atPath: "\(folder)/high.jpg")[.size] as? Int)
        #expect(highSize > 2 * lowSize)
    }

    @Test func grabTakesTheFrameShownAtTheTime() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/moving.mov"
        _ = try await FastRecording.record(FastRecording.configuration(movie, limits: RecordingLimits(maxDuration: 4)))
        // (time, frame shown): frame n is shown from n/30 s to (n+1)/30 s.
        for (seconds, expected) in [(0.0, 0), (1.0, 30), (1.0 + 0.5 / 30, 30), (1.0 - 0.001, 29), (2.51, 75), (3.99, 119)] {
            let output = "\(folder)/at-\(seconds).png"
            try FrameGrabber.grab(inputPath: movie, at: seconds, to: StillRequest(path: output))
            let grabbed = try PictureComparison.rgb(output)
            let right = PictureComparison.meanAbsoluteDifference(grabbed, try PictureComparison.rgb(movie, frame: expected))
            #expect(right < 1.0, "at \(seconds) s: differs from frame \(expected) by \(right)")
            for neighbour in [expected - 1, expected + 1] where neighbour >= 0 && neighbour < 120 {
                let other = PictureComparison.meanAbsoluteDifference(grabbed, try PictureComparison.rgb(movie, frame: neighbour))
                #expect(other > right + 0.5, "at \(seconds) s: frame \(neighbour) matches as well (\(other) vs \(right))")
            }
        }
    }

    @Test func grabAndStillTurnPortraitMoviesUpright() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try FastRecording.configuration("\(folder)/portrait.mov", limits: RecordingLimits(maxDuration: 0.5))
        configuration.orientation = .portrait
        configuration.firstFrameStill = StillRequest(path: "\(folder)/first.png")
        _ = try await FastRecording.record(configuration)
        try FrameGrabber.grab(inputPath: configuration.outputPath, to: StillRequest(path: "\(folder)/grab.png"))
        // ffmpeg turns the movie's first frame by its display matrix, as players do; both stills must match it.
        let upright = try PictureComparison.rgb(configuration.outputPath)
        #expect(upright.count == 288 * 352 * 3)
        for still in ["first.png", "grab.png"] {
            let pixels = try PictureComparison.rgb("\(folder)/\(still)")
            #expect(pixels.count == upright.count, "\(still) is not portrait")
            #expect(PictureComparison.meanAbsoluteDifference(pixels, upright) < 4, "\(still) is not turned like the movie")
        }
    }

    @Test func grabRejectsBadInputWithoutWriting() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/m.mov"
        _ = try await FastRecording.record(FastRecording.configuration(movie, limits: RecordingLimits(maxDuration: 1)))
        let audioOnly = "\(folder)/a.mov"
        _ = try await FastRecording.record(FastRecording.configuration(audioOnly, limits: RecordingLimits(maxDuration: 1), video: nil))
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: "\(folder)/junk.mov"))
        let cases: [(String, Double, String, String)] = [
            (movie, 5, "out.jpg", "past the end"), (movie, -1, "out.jpg", "out of range"), (audioOnly, 0, "out.jpg", "no video stream"),
            ("\(folder)/junk.mov", 0, "out.jpg", "cannot read"), ("\(folder)/none.mov", 0, "out.jpg", "cannot read"),
            (movie, 0, "out.gif", ".jpg, .jpeg or .png"), (movie, 0, "nofolder/out.jpg", "does not exist"),
        ]
        for (input, seconds, output, message) in cases {
            do {
                try FrameGrabber.grab(inputPath: input, at: seconds, to: StillRequest(path: "\(folder)/\(output)"))
                Issue.record("accepted \(input) at \(seconds)")
            } catch let error as ReelError {
                #expect(error.isInvalidInput && error.description.contains(message), "\(error)")
            }
        }
        #expect(Scratch.files(in: folder) == ["a.mov", "junk.mov", "m.mov"])
    }

    @Test func pressShorterThanTheThresholdKeepsOnlyAPhoto() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tap = try PressCapture(basename: "\(folder)/tap", holdThreshold: 1,
                                   configuration: FastRecording.configuration("", limits: RecordingLimits(maxDuration: 0.4)))
        try tap.beginPress()
        let photo = try await tap.outcome()
        #expect(photo.kind == .photo && photo.photo == "\(folder)/tap.jpg" && photo.movie == nil)
        #expect(Scratch.files(in: folder) == ["tap.jpg"], "only the photo: \(Scratch.files(in: folder))")

        var configuration = try FastRecording.configuration("", limits: RecordingLimits(maxDuration: 1.5))
        configuration.firstFrameStill = StillRequest(path: "\(folder)/hold-first.png")
        let hold = try PressCapture(basename: "\(folder)/hold", holdThreshold: 1, configuration: configuration)
        try hold.beginPress()
        let movie = try await hold.outcome()
        #expect(movie.kind == .movie && movie.movie == "\(folder)/hold.mov" && movie.photo == nil)
        #expect(movie.recording.still == "\(folder)/hold-first.png")
        #expect(Scratch.files(in: folder) == ["hold-first.png", "hold.mov", "tap.jpg"])
        #expect(Atoms.pngSignature(path: "\(folder)/hold-first.png"))
        #expect(try MediaInspection(path: "\(folder)/hold.mov").videoFrames == 45)
    }

    @Test func pressEndedByTheCallerDecidesByItsLength() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Paced source, like a finger on the button: released after ~0.3 s → photo.
        let paced = try FastRecording.configuration("", limits: RecordingLimits(), video: DeviceSpec(parsing: "lavfi:testsrc2"),
                                                    audio: DeviceSpec(parsing: "lavfi:sine"))
        // Under a sanitizer's 5-20x slowdown a stalled paced source catches up in a burst after the stall, and
        // what was delivered before the stop is kept: allow for that with a longer threshold there.
        let threshold: Double = RealTimeChecks.enabled ? 2 : 5
        let press = try PressCapture(basename: "\(folder)/quick", holdThreshold: threshold, configuration: paced)
        try press.beginPress()
        // The finger comes up from a thread of its own: beside the parallel tests a Task.sleep on the
        // cooperative pool resumed seconds late (its threads busy with blocking work), a hold of > 1 s.
        Thread.detachNewThread {
            usleep(300_000)
            press.endPress()
        }
        let outcome = try await press.outcome()
        #expect(outcome.kind == .photo && outcome.recording.stopReason == .stopped)
        #expect(Scratch.files(in: folder) == ["quick.jpg"])
    }

    @Test func snapTakesAStillFromALiveSource() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try PresetLibrary.preset(named: "640x480")
        try LiveSnapshot.take(from: DeviceSpec(parsing: "lavfi:testsrc2"), preset: preset, skipFrames: 5,
                              to: StillRequest(path: "\(folder)/snap.jpg"))
        let pixels = try PictureComparison.rgb("\(folder)/snap.jpg")
        #expect(pixels.count == 640 * 480 * 3)
        // Frame 5 of the source, not frame 0.
        let source = "\(folder)/source.mkv"
        try #require(try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=30",
                                                            "-frames:v", "8", "-c:v", "ffv1", source]).status == 0)
        let fifth = PictureComparison.meanAbsoluteDifference(pixels, try PictureComparison.rgb(source, frame: 5))
        let first = PictureComparison.meanAbsoluteDifference(pixels, try PictureComparison.rgb(source, frame: 0))
        #expect(fifth < first, "snap should skip frames: \(fifth) vs \(first)")
        #expect(LiveSnapshot.defaultSkipFrames(for: try DeviceSpec(parsing: "v4l2:/dev/video0")) > 0)
        #expect(LiveSnapshot.defaultSkipFrames(for: try DeviceSpec(parsing: "lavfi:testsrc2")) == 0)
    }
}
