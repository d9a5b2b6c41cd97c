import Foundation
import Reel
import ReelTestSupport
import SystemSupport
import Testing

@Suite(.serialized) struct CaptureSessionTests {
    /// Events seen by a session's callback, collected across threads.
    final class EventLog: Sendable {
        private let events = Locked<[String]>([])
        private let progress = Locked<[RecordingProgress]>([])
        func add(_ event: RecordingEvent) {
            switch event {
            case .started: events.withLock { $0.append("started") }
            case .progress(let value):
                events.withLock { if $0.last != "progress" { $0.append("progress") } }
                progress.withLock { $0.append(value) }
            case .finished: events.withLock { $0.append("finished") }
            case .segmentStarted, .segmentFinished: events.withLock { $0.append("segment") }
            case .liveStopped: events.withLock { $0.append("liveStopped") }
            case .liveConnection: events.withLock { $0.append("liveConnection") }
            case .levels, .alarmStarted, .alarmEnded, .triggerStarted, .triggerEnded, .triggeredMovie, .videoInput: break
            }
        }
        var names: [String] { events.withLock { $0 } }
        var progressReports: [RecordingProgress] { progress.withLock { $0 } }
    }

    @Test func cancellingRecordStopsAndFinalizes() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A paced source without limits: only the cancellation ends it.
        let configuration = try FastRecording.configuration(
            "\(folder)/cancelled.mov", limits: RecordingLimits(), video: DeviceSpec(parsing: "lavfi:testsrc2"),
            audio: DeviceSpec(parsing: "lavfi:sine"))
        let session = CaptureSession()
        let started = Date()
        let task = Task { try await session.record(configuration) }
        // Cancel once it records (on a loaded machine opening the inputs can take a while).
        let deadline = Date().addingTimeInterval(30)
        while session.currentState != .recording && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(600))
        // A paced source records no more media than the time that passed, and the 600 ms sleep may last far
        // longer on a loaded machine (it took 7 s once in CI under TSan, beside the other tests in parallel).
        let beforeCancel = Date().timeIntervalSince(started)
        task.cancel()
        let result = try await task.value
        #expect(result.stopReason == .stopped && result.recordedSuccessfully, "\(result)")
        // Stopped soon after the cancel: at most 2 s of media past the time it came.
        #expect(result.duration > 0.3 && result.duration < beforeCancel + 2, "\(result.duration) s, cancelled after \(beforeCancel) s")
        #expect(try CleanDecode.problems(in: "\(folder)/cancelled.mov") == "")
    }

    /// A stop ends the audio and the video at the same instant, wherever it falls between a picture and an
    /// audio block (the devices stop together, but the last picture lasts a frame past its capture and the
    /// last block ended before it arrived): the audio the file plays lasts exactly as long as the video.
    @Test(arguments: [700_000, 1_010_000, 1_333_000])
    func stoppedTracksEndTogether(stopAfterMicroseconds: UInt32) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Paced sources; 44.1 kHz audio resampled to the preset's 48 kHz (swresample holds a tail at the end).
        let configuration = try FastRecording.configuration(
            "\(folder)/stopped.mov", limits: RecordingLimits(), video: DeviceSpec(parsing: "lavfi:testsrc2"),
            audio: DeviceSpec(parsing: "lavfi:sine"))
        let session = CaptureSession()
        try session.start(configuration)
        usleep(stopAfterMicroseconds)
        session.stop()
        let result = session.waitUntilFinished()
        #expect(result.stopReason == .stopped && result.recordedSuccessfully, "\(result)")
        let path = "\(folder)/stopped.mov"
        let video = try MediaInspection(path: path).videoDuration
        let played = Double(try SegmentInspection.playedAudioSamples(path)) / 48000
        #expect(abs(played - video) < 1e-3, "audio \(played) s, video \(video) s")
        #expect(try CleanDecode.problems(in: path) == "")
    }

    @Test func eventsAsAnAsyncStreamEndAfterFinished() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = try FastRecording.configuration("\(folder)/streamed.mov", limits: RecordingLimits(maxDuration: 2))
        let session = CaptureSession()
        var names: [String] = []
        var finished: RecordingResult? = nil
        for await event in try session.startStreamingEvents(configuration) {
            switch event {
            case .started: names.append("started")
            case .progress: if names.last != "progress" { names.append("progress") }
            case .finished(let result):
                names.append("finished")
                finished = result
            case .segmentStarted, .segmentFinished: names.append("segment")
            case .liveStopped: names.append("liveStopped")
            case .liveConnection: names.append("liveConnection")
            case .levels, .alarmStarted, .alarmEnded, .triggerStarted, .triggerEnded, .triggeredMovie, .videoInput: break
            }
        }
        #expect(names.first == "started" && names.last == "finished", "\(names)")
        #expect(finished?.stopReason == .maxDurationReached && finished == session.currentState.result)
    }

    @Test func statesEventsStopAndRetake() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = CaptureSession()
        #expect(session.currentState == .ready)
        // Paced sources, like a camera: the recording runs until stopped.
        let configuration = try FastRecording.configuration(
            "\(folder)/take1.mov", limits: RecordingLimits(), video: DeviceSpec(parsing: "lavfi:testsrc2"),
            audio: DeviceSpec(parsing: "lavfi:sine"))
        let log = EventLog()
        let startedAt = Date()
        try session.start(configuration) { log.add($0) }
        #expect(session.currentState == .recording)
        #expect(throws: ReelError.self) { try session.start(configuration) }
        try await Task.sleep(for: .milliseconds(1600))
        let stoppedAt = Date()
        session.stop()
        let result = await session.finished()
        #expect(session.currentState == .finished(result))
        #expect(result.stopReason == .stopped && result.recordedSuccessfully)
        // A paced source records in real time: the media lasts about as long as the session ran.
        let ran = stoppedAt.timeIntervalSince(startedAt)
        #expect(result.duration > 1.2 && result.duration <= ran + 0.2, "duration \(result.duration) after \(ran) s")
        // (How many pictures a live source drops depends on how busy the machine is: not bounded here.)
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.names == ["started", "progress", "finished"])
        let last = try #require(log.progressReports.last)
        #expect(last.videoFrames > 0 && last.bytes > 0 && last.elapsed > 0.4)

        // Retake: the same session records again into a new file.
        var retake = configuration
        retake.outputPath = "\(folder)/take2.mov"
        retake.video = FastRecording.video
        retake.audio = FastRecording.audio
        retake.limits.maxDuration = 0.5
        let second = try await session.record(retake)
        #expect(second.stopReason == .maxDurationReached && second.videoFrames == 15)
        #expect(try MediaInspection(path: "\(folder)/take1.mov").videoFrames == result.videoFrames)
    }

    @Test func audioAndVideoStartTogetherAndTheToneSurvives() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, video, audio) in [
            ("fast", FastRecording.video, FastRecording.audio),
            ("paced", try DeviceSpec(parsing: "lavfi:testsrc2"), try DeviceSpec(parsing: "lavfi:sine=frequency=1000")),
        ] {
            let output = "\(folder)/\(name).mov"
            let result = try await FastRecording.record(FastRecording.configuration(
                output, limits: RecordingLimits(maxDuration: 2), video: video, audio: audio))
            #expect(result.recordedSuccessfully)
            let movie = try MediaInspection(path: output)
            #expect(abs(movie.videoStart - movie.audioStart) <= 1.0 / 30, "\(name): start offset \(movie.videoStart - movie.audioStart)")
            #expect(abs(movie.videoDuration - movie.audioDuration) <= 1.0 / 30, "\(name): end offset")
            let expected = name == "fast" ? 440.0 : 1000.0
            // Skip the AAC encoder's start-up transient and the padded last frame (0.1 s at each end).
            let steady = Array(movie.audioPreview.dropFirst(movie.audioSampleRate / 10).dropLast(movie.audioSampleRate / 10))
            let frequency = ToneAnalysis.frequency(of: steady, sampleRate: movie.audioSampleRate)
            let quarters = stride(from: 0, to: steady.count - 12000, by: 12000).map {
                Int(ToneAnalysis.frequency(of: Array(steady[$0..<$0 + 12000]), sampleRate: movie.audioSampleRate))
            }
            #expect(abs(frequency - expected) < expected * 0.01, "\(name): tone \(frequency) Hz, per quarter second \(quarters)")
        }
    }

    @Test func videoOnlyAndAudioOnlyRecordings() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let videoOnly = try await FastRecording.record(FastRecording.configuration(
            "\(folder)/v.mov", limits: RecordingLimits(maxDuration: 1), audio: nil))
        #expect(videoOnly.recordedSuccessfully && videoOnly.audioSamples == 0 && videoOnly.videoFrames == 30)
        let audioOnly = try await FastRecording.record(FastRecording.configuration(
            "\(folder)/a.mov", limits: RecordingLimits(maxDuration: 1), video: nil))
        #expect(audioOnly.recordedSuccessfully && audioOnly.videoFrames == 0 && audioOnly.audioSamples == 48000)
        let movie = try MediaInspection(path: "\(folder)/a.mov")
        #expect(movie.videoCodec == nil && movie.audioCodec == "aac")
        let audio = try #require(try FFprobe.stream("\(folder)/a.mov", type: "audio"))
        #expect(abs((Double(audio["duration"] as? String ?? "") ?? 0) - 1) < 0.001)
    }

    /// The stored picture has a white square in its top-left corner; the ffmpeg CLI, rotating as players do,
    /// must show it in the corner the orientation implies.
    @Test func orientationIsWrittenAsRotationThatPlayersApply() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let marked = try DeviceSpec(parsing: "lavfi:color=black:s=352x288:r=30,drawbox=x=0:y=0:w=60:h=60:color=white:t=fill?realtime=0")
        let corners: [Orientation: (x: Bool, y: Bool)] = [  // where the white square lands: (right?, bottom?)
            .landscapeRight: (false, false), .portrait: (true, false), .landscapeLeft: (true, true),
            .portraitUpsideDown: (false, true)]
        for orientation in Orientation.allCases {
            var configuration = try FastRecording.configuration(
                "\(folder)/\(orientation.rawValue).mov", limits: RecordingLimits(maxDuration: 0.2), video: marked, audio: nil)
            configuration.orientation = orientation
            _ = try await FastRecording.record(configuration)
            let movie = try MediaInspection(path: configuration.outputPath)
            #expect(movie.rotation == orientation.clockwiseRotation, "\(orientation)")
            #expect(movie.width == 352, "pixels are stored as captured")
            let upright = "\(folder)/\(orientation.rawValue).gray"
            let run = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", configuration.outputPath, "-frames:v", "1",
                                                            "-f", "rawvideo", "-pix_fmt", "gray", upright])
            try #require(run.status == 0, "\(run.standardError)")
            let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: upright)))
            let turned = orientation.clockwiseRotation % 180 != 0
            let (width, height) = turned ? (288, 352) : (352, 288)
            try #require(pixels.count == width * height)
            let corner = corners[orientation]!
            let x = corner.x ? width - 10 : 10, y = corner.y ? height - 10 : 10
            #expect(pixels[y * width + x] > 200, "\(orientation): the marked corner is not where players show it")
        }
    }

    @Test func aFileInputEndsWithInputEnded() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/source.mov"
        _ = try await FastRecording.record(FastRecording.configuration(source, limits: RecordingLimits(maxDuration: 1)))
        let result = try await FastRecording.record(FastRecording.configuration(
            "\(folder)/copy.mov", preset: "low", limits: RecordingLimits(),
            video: DeviceSpec(parsing: "file:\(source)"), audio: DeviceSpec(parsing: "file:\(source)")))
        #expect(result.stopReason == .inputEnded && result.recordedSuccessfully)
        let movie = try MediaInspection(path: "\(folder)/copy.mov")
        #expect(movie.width == 192 && abs(movie.videoDuration - 1) < 0.07)
    }

    @Test func unusableDevicesAreInputErrors() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for spec in ["v4l2:/dev/video99", "file:\(folder)/missing.mp4", "lavfi:nosuchsource", "alsa:nosuchcard"] {
            do {
                _ = try await FastRecording.record(FastRecording.configuration(
                    "\(folder)/x.mov", limits: RecordingLimits(maxDuration: 1), video: DeviceSpec(parsing: spec), audio: nil))
                Issue.record("accepted \(spec)")
            } catch let error as ReelError {
                #expect(error.isInvalidInput, "\(spec): \(error)")
                #expect(error.description.contains(spec.split(separator: "?")[0]), "names the device: \(error)")
            }
        }
        #expect(Scratch.files(in: folder).isEmpty)
    }
}

/// A live source the encoder cannot keep up with, timed in real time: it runs with the timed suites (after the
/// parallel ones), where a 1080p60 encode does not compete with the rest of the test suite for the two cores.
@Suite struct LiveOverloadTests {
    /// A live source faster than the encoder: frames are dropped and counted, never queued without bound,
    /// and the movie still holds a decodable picture for every frame it reports.
    @Test func liveSourceOutrunningTheEncoderDropsAndCounts() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let heavy = "\(folder)/heavy.json"
        try #"""
            {"name": "heavy", "video": {"size": "1920x1080", "fps": 60, "x264Preset": "slow", "crf": 18, "profile": "high",
             "keyframeInterval": 60, "bFrames": 0}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "128k"}}
            """#.write(toFile: heavy, atomically: true, encoding: .utf8)
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/live.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: try PresetLibrary.load(path: heavy),
            limits: RecordingLimits(maxDuration: 1.5))
        let result = try await FastRecording.record(configuration)
        #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached, "\(result.stopReason): \(result.error ?? "")")
        #expect(result.droppedFrames > 0, "a 1080p60 'slow' encode cannot keep up on this machine")
        #expect(result.videoFrames + result.droppedFrames >= 80)
        let movie = try MediaInspection(path: configuration.outputPath)
        #expect(movie.videoFrames == result.videoFrames)
        #expect(abs(movie.audioDuration - 1.5) < 0.05, "audio is not dropped with the pictures")
    }
}
