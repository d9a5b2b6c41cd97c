import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 15 (part): pause and resume. A live source whose pictures carry their number records, pauses for
/// about a second and resumes: the movie leaves the paused pictures out, its timeline has no hole (every frame
/// one frame long), audio covers the same time as video, and the picture after the resume is a keyframe.
@Suite struct PauseTests {
    @Test func aPausedStretchIsLeftOutWithoutAHole() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/paused.mov", video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset, limits: RecordingLimits(), fragmentInterval: 0)
        let session = CaptureSession()
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(1000))
        session.pauseRecording()
        try await Task.sleep(for: .milliseconds(1000))
        session.resumeRecording()
        try await Task.sleep(for: .milliseconds(1000))
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully, "\(result)")
        let numbers = try TestInputs.frameNumbers("\(folder)/paused.mov")
        let jumps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        // One jump over the paused pictures (about 30), every other step one picture.
        let big = jumps.filter { $0 > 1 }
        #expect(big.count == 1 && (20...45).contains(big.first ?? 0), "steps \(jumps)")
        #expect(jumps.filter { $0 == 0 }.count <= 1, "no picture repeated: \(jumps)")
        #expect((50...75).contains(numbers.count), "about 2 s recorded: \(numbers.count) frames")
        // No hole: every packet one frame long, one after the other.
        let packets = try TestInputs.videoPacketTimes("\(folder)/paused.mov")
        for (index, packet) in packets.enumerated() { #expect(abs(packet.time - Double(index) / 30) < 1e-4, "packet \(index) at \(packet.time)") }
        // Audio covers the same time (within a frame): the pause is cut out of both.
        let movie = try MediaInspection(path: "\(folder)/paused.mov")
        #expect(abs(movie.audioDuration - movie.videoDuration) < 1.0 / 30 + 0.022, "audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        // The picture after the resume is a keyframe.
        let keyframes = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                               "-of", "csv=p=0", "\(folder)/paused.mov"]).standardOutput
            .split(separator: "\n").filter { $0.contains("K") }.compactMap { Double($0.split(separator: ",")[0]) }
        let resumeIndex = (jumps.firstIndex { $0 > 1 } ?? -10) + 1
        #expect(keyframes.contains { abs($0 - Double(resumeIndex) / 30) < 1e-3 }, "keyframes \(keyframes), resume at frame \(resumeIndex)")
    }

    /// The main movie and a tier at its preset pause and resume together, at one keyframe of their one encoder:
    /// the tier holds the main movie's pictures and its sound packet for packet (its sound is the main movie's
    /// AAC, which is right only if both left out the same stretch).
    @Test func aTierAtTheMainPresetPausesWithTheMainMovie() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        var configuration = RecordingConfiguration(
            outputPath: "\(folder)/main.mov", video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset, limits: RecordingLimits(), fragmentInterval: 0)
        configuration.tiers = [MovieTier(outputPath: "\(folder)/copy.mov", preset: preset)]
        let session = CaptureSession()
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(700))
        session.pauseRecording()
        try await Task.sleep(for: .milliseconds(700))
        session.resumeRecording()
        try await Task.sleep(for: .milliseconds(700))
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.outputs?.allSatisfy(\.recordedSuccessfully) == true, "\(result)")
        let numbers = try TestInputs.frameNumbers("\(folder)/main.mov")
        let jumps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        #expect(jumps.filter { $0 > 1 }.count == 1, "one jump over the pause: \(jumps)")
        let main = try SharedAudioEncoderTests.packets("\(folder)/main.mov")
        let copy = try SharedAudioEncoderTests.packets("\(folder)/copy.mov")
        #expect(main.count > 20 && copy == main, "the same pictures")
        let mainAudio = try SharedAudioEncoderTests.packets("\(folder)/main.mov", stream: "a")
        let copyAudio = try SharedAudioEncoderTests.packets("\(folder)/copy.mov", stream: "a")
        #expect(mainAudio.count > 30 && copyAudio == mainAudio, "the same sound")
        let movie = try MediaInspection(path: "\(folder)/copy.mov")
        #expect(abs(movie.audioDuration - movie.videoDuration) < 1.0 / 30 + 0.022, "audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        #expect(result.outputs?[1].stages?.encodeAudio == 0, "the tier encoded no sound")
    }

    /// Unpaced inputs (`realtime=0`: no clock, the session reads as fast as it can) pause where the movies are
    /// when asked: the pictures and the sound leave out the same stretch of the input (the pictures come from
    /// the preset's shared encoder, the pause at a picture it has not sent yet, after every item the movies
    /// were handed). The main movie and a tier at its preset pause together and end at their 20 s limit (long
    /// enough that the session, some 15 times faster than real time here, is still running when the test
    /// pauses it; paused, it waits for the resume). A MovieOutput added early, its limit 3 s, pauses with them.
    /// The sound under each picture is checked against the picture's number (SteppedTone): it found the
    /// encoder, skipping while every movie was paused, passing the resume's slot before the movies resumed
    /// there (once in six to sixteen runs: the sound 0.45 s off the pictures from the resume on).
    @Test func unpacedInputsPauseTheirPicturesAndSoundAlike() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (session, preset) = try Self.startUnpaced(in: folder, maxDuration: 20)
        try await Self.waitForInput(session, seconds: 0.2)
        let added = MovieOutput(outputPath: "\(folder)/added.mov", preset: preset, limits: RecordingLimits(maxDuration: 3))
        try session.addOutput(added)
        // Once half a second of the input is in, pause; resume once another second of it went by.
        try await Self.waitForInput(session, seconds: 0.5)
        session.pauseRecording()
        try await Self.waitForInput(session, seconds: Self.inputSeconds(session) + 1)
        session.resumeRecording()
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.outputs?.allSatisfy { $0.recordedSuccessfully && $0.stopReason == .maxDurationReached } == true,
                "\(result)")
        for name in ["main", "copy"] {
            let (count, jumps) = try Self.checkPausedOnce("\(folder)/\(name).mov", checkedAtLeast: 300)
            #expect(count == 600 && jumps.count == 1 && jumps[0] >= 20, "\(name): 20 s, one jump over the pause: \(jumps)")
            let movie = try MediaInspection(path: "\(folder)/\(name).mov")
            #expect(abs(movie.audioDuration - 20) < 0.022, "\(name): audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        }
        let addedResult = try #require(added.result)
        #expect(addedResult.recordedSuccessfully && addedResult.videoFrames == 90 && addedResult.stopReason == .maxDurationReached, "\(addedResult)")
        let (_, addedJumps) = try Self.checkPausedOnce("\(folder)/added.mov", checkedAtLeast: 45)
        #expect(addedJumps.count <= 1, "added: \(addedJumps)")
        let main = try SharedAudioEncoderTests.packets("\(folder)/main.mov")
        let copy = try SharedAudioEncoderTests.packets("\(folder)/copy.mov")
        #expect(copy == main, "the tier holds the main movie's pictures")
    }

    /// A stop (not a limit) of unpaced inputs after a pause ends the pictures and the sound together. The
    /// readers of such inputs run apart by what their pools hold (the sound up to 16 blocks, 0.34 s, ahead of
    /// 4 pictures); at the stop the session hands out only what lies before the end of the stream that runs
    /// dry first (CaptureBuffer.endStreamsTogether). Before, it handed out all of it: the sound came out
    /// 0.7-1.3 s longer than the pictures (then 64 blocks; a pause, when nothing takes pictures, lets it run
    /// furthest ahead).
    @Test func aStopOfUnpacedInputsAfterAPauseEndsTheTracksTogether() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (session, _) = try Self.startUnpaced(in: folder, maxDuration: 60)
        // Half a second of the input, pause, a second, resume, a second, stop.
        try await Self.waitForInput(session, seconds: 0.5)
        session.pauseRecording()
        try await Self.waitForInput(session, seconds: Self.inputSeconds(session) + 1)
        session.resumeRecording()
        try await Self.waitForInput(session, seconds: Self.inputSeconds(session) + 1)
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.outputs?.allSatisfy { $0.recordedSuccessfully && $0.stopReason == .stopped } == true,
                "\(result)")
        for name in ["main", "copy"] {
            let (count, jumps) = try Self.checkPausedOnce("\(folder)/\(name).mov", checkedAtLeast: 20)
            #expect(count >= 30 && jumps.count == 1, "\(name): one jump over the pause: \(jumps)")
            let movie = try MediaInspection(path: "\(folder)/\(name).mov")
            // Within a picture and an AAC frame, as a live stop ends them.
            #expect(abs(movie.audioDuration - movie.videoDuration) < 1.0 / 30 + 0.022, "\(name): audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        }
        #expect(try SharedAudioEncoderTests.packets("\(folder)/copy.mov") == SharedAudioEncoderTests.packets("\(folder)/main.mov"),
                "the tier holds the main movie's pictures")
    }

    /// Starts a session of unpaced inputs (`realtime=0`): numbered pictures (wide numbers: the readers may run
    /// several seconds on while a test waits to resume) and the stepped tone, into `main.mov` and a tier at
    /// its preset, `copy.mov`, both with a duration limit.
    static func startUnpaced(in folder: String, maxDuration: Double) throws -> (CaptureSession, Preset) {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        var configuration = RecordingConfiguration(
            outputPath: "\(folder)/main.mov",
            video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30", wide: true))?realtime=0"),
            audio: try DeviceSpec(parsing: "lavfi:\(SteppedTone.source)?realtime=0"), preset: preset,
            limits: RecordingLimits(maxDuration: maxDuration), fragmentInterval: 0)
        configuration.tiers = [MovieTier(outputPath: "\(folder)/copy.mov", preset: preset)]
        let session = CaptureSession()
        try session.start(configuration)
        return (session, preset)
    }

    /// Seconds of the 30 fps input the session has read.
    static func inputSeconds(_ session: CaptureSession) -> Double { Double(session.status.capturedPictures ?? 0) / 30 }

    /// Waits until the session has read `seconds` of the input, polling every millisecond (the input is read
    /// 15-30 times faster than real time). A session that ended, or one that has not got there within 60 s of
    /// wall time (a machine far busier than any test run sees), is reported here rather than left for the
    /// movie checks to trip over.
    static func waitForInput(_ session: CaptureSession, seconds: Double) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while inputSeconds(session) < seconds {
            guard session.currentState == .recording else {
                Issue.record("the session ended while waiting for \(seconds) s of input: \(session.currentState)")
                return
            }
            guard ContinuousClock.now < deadline else {
                Issue.record("\(inputSeconds(session)) s of input read in 60 s, waiting for \(seconds) s")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// A movie of `startUnpaced`'s inputs: the sound under each checked picture (at least `checkedAtLeast`) is
    /// at that picture's pitch (SteppedTone), before and after its pause. Returns its pictures' count and the
    /// steps of more than one picture between them (the jumps over pauses).
    static func checkPausedOnce(_ path: String, checkedAtLeast: Int) throws -> (count: Int, jumps: [Int]) {
        let numbers = try TestInputs.frameNumbers(path, wide: true)
        let jumps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 4096) % 4096 }.filter { $0 > 1 }
        let (wrong, checked) = try SteppedTone.misplacedPictures(in: path, wide: true)
        #expect(checked >= checkedAtLeast && wrong.isEmpty,
                "\(path): \(checked) pictures checked, \(wrong.count) at another pitch: \(wrong.prefix(3)) ... \(wrong.suffix(2)); jumps \(jumps)")
        return (numbers.count, jumps)
    }

    /// `reel record` pauses on SIGUSR1 and resumes on the next one; the JSON's duration is the recorded media.
    @Test func sigusr1PausesAndResumesTheCommand() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable, [
            "record", "cli.mov", "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine",
            "--preset", "352x288", "--size", "64x64", "--json", "--quiet"], currentDirectory: folder)
        Thread.sleep(forTimeInterval: 1.2)
        kill(running.process.processIdentifier, SIGUSR1)
        Thread.sleep(forTimeInterval: 1)
        kill(running.process.processIdentifier, SIGUSR1)
        Thread.sleep(forTimeInterval: 1)
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let duration = json["duration"] as? Double ?? 0
        let numbers = try TestInputs.frameNumbers("\(folder)/cli.mov")
        let jumps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        #expect(jumps.filter { $0 > 1 }.count == 1, "one stretch left out: steps \(jumps)")
        // How much: the signals' timing against the recording's (a sanitizer's start-up takes most of a second).
        if RealTimeChecks.make("about 2 s of 3.2 s recorded, a pause of about 1 s") {
            #expect(duration > 1.4 && duration < 2.8, "about 2 s recorded of about 3.2 s: \(duration)")
            #expect((20...45).contains(jumps.max() ?? 0), "steps \(jumps)")
        }
    }

    /// Issue 24, item 7: `--max-duration` counts recorded media. Paused time is not recorded, so the readers'
    /// limit moves on by it: a resumed recording reaches the limit (`maxDurationReached`, exactly the limit
    /// recorded), and one that stays paused past the limit waits for its resume or stop instead of ending.
    @Test func pausedTimeIsNotCountedByTheDurationLimit() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine",
                         "--preset", "352x288", "--size", "64x64", "--json", "--quiet", "--fragment-interval", "1"]
        /// Records NAME, pauses once its first fragment (a second of media) is on disk, however busy the machine,
        /// waits `seconds` (longer than the limit and its second of slack), then sends `then`.
        func pausedRecording(_ name: String, maxDuration: String, seconds: Double, then signal: Int32) throws -> ProcessResult {
            let running = try Processes.start(Processes.reelExecutable, ["record", name, "--max-duration", maxDuration] + arguments,
                                              currentDirectory: folder)
            #expect(Self.waitForFirstFragment("\(folder)/\(name)"))
            kill(running.process.processIdentifier, SIGUSR1)
            Thread.sleep(forTimeInterval: seconds)
            #expect(running.process.isRunning, "a paused recording does not end by itself")
            kill(running.process.processIdentifier, signal)
            return Processes.finish(running, timeout: 30)
        }
        let result = try pausedRecording("resumed.mov", maxDuration: "4", seconds: 6, then: SIGUSR1)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "maxDurationReached", "\(json)")
        #expect(abs((json["duration"] as? Double ?? 0) - 4) < 0.001 && json["videoFrames"] as? Int == 120, "\(json)")
        let numbers = try TestInputs.frameNumbers("\(folder)/resumed.mov")
        #expect(numbers.count == 120)
        #expect(zip(numbers, numbers.dropFirst()).filter { ($1 - $0 + 256) % 256 > 1 }.count <= 1, "one jump at most, over the pause")

        let end = try pausedRecording("stopped.mov", maxDuration: "2", seconds: 4, then: SIGINT)
        #expect(end.status == 0, "\(end.standardError)")
        let stoppedJSON = try TestInputs.json(end.standardOutput)
        #expect(stoppedJSON["stopReason"] as? String == "stopped", "\(stoppedJSON)")
        #expect((stoppedJSON["duration"] as? Double ?? 9) < 2, "\(stoppedJSON)")
    }

    /// Waits until a recording with one-second fragments has written its first fragment (its file grows past
    /// the header), up to a minute.
    static func waitForFirstFragment(_ path: String) -> Bool {
        for _ in 0..<600 {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if size > 8192 { return true }
            usleep(100_000)
        }
        return false
    }
}
