import Foundation
import ReelTestSupport
import Testing

/// A live composition of two emulated cameras (Tests/FakeCamera: numbered pictures, 640x480 at 30 fps), side
/// by side: the second stalls after 30 pictures (open, answering, delivering nothing), is declared lost after
/// the device timeout and shows a placeholder while the first goes on; switched over the control socket to
/// another input it is back; then the layout changes to it alone.
@Suite(.serialized) struct ComposeLiveTests {
    static let switchedTo = "lavfi:" + TestInputs.numberedPictures(rate: "30", offset: 150)

    static func timeline(_ folder: String) throws -> Double {
        let status = try ControlSocketTests.ctl(["live.sock", "status", "--json"], in: folder)
        return (try? TestInputs.json(status.standardOutput))?["timeline"] as? Double ?? 0
    }

    /// Waits until the recording's timeline passes `seconds` (false when it ended first, or after 30 s).
    static func waitForTimeline(_ seconds: Double, _ folder: String, _ running: Processes.Running) throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: 30)
        while running.process.isRunning && Date() < deadline {
            if try timeline(folder) >= seconds { return true }
            usleep(50_000)
        }
        return false
    }

    @Test func aStalledCameraIsLostThenSwitchedBack() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mode = #"[{"format": "YUYV", "size": "640x480", "fps": 30}]"#
        try EmulatedCameraTests.writeConfig(#"[{"path": "/dev/video0", "modes": \#(mode)}, {"path": "/dev/video1", "modes": \#(mode), "stallAfter": 30}]"#,
                                            in: folder)
        let running = try Processes.start(Processes.reelExecutable, [
            "record", "live.mov", "--video", "v4l2:/dev/video0", "--video", "v4l2:/dev/video1", "--audio", "none", "--preset", "352x288",
            "--size", "256x128", "--layout", "side-by-side", "--device-timeout", "1", "--max-duration", "6",
            "--control", "live.sock", "--json", "--quiet"], currentDirectory: folder, environment: try EmulatedCameraTests.environment(in: folder))
        #expect(Processes.waitForFile("\(folder)/live.sock", seconds: 20), "the control socket did not appear")
        try #require(try Self.waitForTimeline(2.8, folder, running), "the recording ended early")
        let asked = try Self.timeline(folder)
        let switched = try ControlSocketTests.ctl(["live.sock", "switch-video", "2", Self.switchedTo], in: folder)
        #expect(switched.status == 0 && switched.standardOutput.contains("2 \(Self.switchedTo)"), "\(switched.standardOutput) \(switched.standardError)")
        let switchedAt = try Self.timeline(folder)
        try #require(try Self.waitForTimeline(max(4.5, switchedAt + 0.5), folder, running), "the recording ended early")
        let alone = try ControlSocketTests.ctl(["live.sock", "layout", "only:2"], in: folder)
        #expect(alone.status == 0 && alone.standardOutput.contains("(layout only:2)"), "\(alone.standardOutput) \(alone.standardError)")
        let aloneAt = try Self.timeline(folder)
        let result = Processes.finish(running, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("video input 2 (v4l2:/dev/video1) lost: delivered nothing for 1 s"), "\(result.standardError)")
        #expect(result.standardError.contains("video input 2 (\(Self.switchedTo)) is back"), "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 180 && json["stopReason"] as? String == "maxDurationReached", "\(json)")

        let pictures = try ComposedPictures("\(folder)/live.mov")
        let frames = pictures.frames.count
        func frame(at seconds: Double) -> Int { max(0, min(frames - 1, Int(seconds * 30))) }
        // A camera's 4:3 picture fits its 128x128 half as 128x96, 16 rows down; its numbers fill the top 7/8.
        func camera(_ index: Int, x: Int) -> Int { pictures.number(index, x: x, y: 16, width: 128, height: 84) }
        // The first camera goes on throughout (live: a picture may repeat or be passed over at a tick).
        let left = (0..<frame(at: aloneAt - 0.2)).map { camera($0, x: 0) }
        let steps = zip(left, left.dropFirst()).filter { ($1 - $0 + 256) % 256 != 1 }.count
        #expect(steps <= left.count / 10, "\(left)")
        // The second: its 30 pictures, then (lost) the placeholder's grey, then the new input's numbers.
        let early = (0..<frame(at: 0.8)).map { camera($0, x: 128) }
        #expect(early.allSatisfy { $0 < 30 } && early.last! >= 15, "\(early)")
        for index in frame(at: 2.4)..<frame(at: asked) {
            let grey = pictures.meanLuma(index, x: 150, y: 20, width: 80, height: 80)
            #expect(abs(grey - 57) < 4, "picture \(index): \(grey)")
        }
        let back = (frame(at: switchedAt + 0.3)..<frame(at: aloneAt - 0.2)).map { pictures.number($0, x: 128, y: 0, side: 128) }
        #expect(!back.isEmpty && back.allSatisfy { $0 >= 150 }, "\(back)")
        // Alone: the new input fills the height in the middle.
        let middle = (frame(at: aloneAt + 0.3)..<frames).map { pictures.number($0, x: 64, y: 0, side: 128) }
        #expect(!middle.isEmpty && middle.allSatisfy { $0 >= 150 }, "\(middle)")
    }

    /// Two live sound inputs (paced sources, each stamped on its own arrival) mixed on the session clock: the
    /// movie's length in samples, both tones whole (a block lost or misplaced would leave a residual).
    @Test func twoLiveSoundInputsAreMixed() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/live-mix.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:testsrc2", "--audio", "lavfi:aevalsrc=0.125*sin(2*PI*440*t):sample_rate=48000",
                                      "--audio", "lavfi:aevalsrc=0.125*sin(2*PI*1000*t):sample_rate=48000?gain=-6dB", "--preset", "352x288",
                                      "--max-duration", "3", "--json", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect((json["audioSamples"] as? Int ?? 0) > 0, "\(json)")
        // Live sources keep up only at full speed (a sanitizer's slowdown drops blocks, which the mix and the
        // movie then fill with silence).
        guard RealTimeChecks.make("every live sample mixed, both tones whole") else { return }
        // A live movie's sound ends with its pictures to within a block (as with one live sound input).
        #expect(abs((json["audioSamples"] as? Int ?? 0) - 144_000) <= 1024 && json["droppedFrames"] as? Int == 0, "\(json)")
        let samples = Array(try TestInputs.monoSamples(output, sampleRate: 48_000)[4_800..<139_200])
        let fit = ToneFit(samples, sampleRate: 48_000, frequencies: [440, 1000])
        #expect(abs(fit.amplitudes[0] - 0.125) < 0.005 && abs(fit.amplitudes[1] - 0.0625) < 0.004, "\(fit.amplitudes)")
        #expect(fit.residual < 0.004, "residual \(fit.residual)")
    }

    /// Two live sound inputs as separate tracks, with an HLS stream beside the movie: each track holds its own
    /// tone whole and both are as long as each other; the stream carries the first track.
    @Test func twoLiveSoundInputsAsSeparateTracks() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/live-tracks.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:testsrc2", "--audio", "lavfi:aevalsrc=0.125*sin(2*PI*440*t):sample_rate=48000",
                                      "--audio", "lavfi:aevalsrc=0.125*sin(2*PI*1000*t):sample_rate=48000", "--audio-tracks", "separate",
                                      "--preset", "352x288", "--max-duration", "3", "--live", "\(folder)/live", "--json", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let tracks = try FFprobe.streams(output).filter { $0["codec_type"] as? String == "audio" }
        #expect(tracks.count == 2 && Set(tracks.map { $0["duration"] as? String ?? "" }).count == 1, "\(tracks)")
        let stream = try FFprobe.streams("\(folder)/live/index.m3u8").filter { $0["codec_type"] as? String == "audio" }
        #expect(stream.count == 1, "the live stream carries one sound track: \(stream)")
        guard RealTimeChecks.make("every live sample in both tracks, both tones whole") else { return }
        for (track, frequency) in [440.0, 1000.0].enumerated() {
            let samples = Array(try TestInputs.monoSamples(output, sampleRate: 48_000, stream: track)[4_800..<139_200])
            let fit = ToneFit(samples, sampleRate: 48_000, frequencies: [frequency])
            #expect(abs(fit.amplitudes[0] - 0.125) < 0.005 && fit.residual < 0.004, "track \(track): \(fit.amplitudes), residual \(fit.residual)")
        }
        let live = Array(try TestInputs.monoSamples("\(folder)/live/index.m3u8", sampleRate: 48_000)[4_800..<96_000])
        let fit = ToneFit(live, sampleRate: 48_000, frequencies: [440, 1000])
        #expect(fit.amplitudes[0] > 0.1 && fit.amplitudes[1] < 0.002, "the live stream's sound is the first track's: \(fit.amplitudes)")
    }
}
