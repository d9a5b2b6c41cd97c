import Foundation
import ReelTestSupport
import Testing

/// `reel join`: the segments of one recording join into the recording they were cut from (the same
/// numbered pictures, each once, copied packet for packet; the same number of sound samples, a 440 Hz tone
/// running across the joins without a click); an input without sound is silent for its span; inputs that
/// cannot follow each other are refused with one line, exit 2, nothing written.
@Suite(.serialized) struct JoinCommandTests {
    static let video = "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0"
    static let tone = "lavfi:sine=frequency=440?realtime=0"

    static func record(_ arguments: [String], in folder: String) throws {
        let made = try Processes.reel(["record"] + arguments + ["--preset", "352x288", "--quiet"], currentDirectory: folder)
        #expect(made.status == 0, "\(made.standardError)")
    }

    @Test func theSegmentsOfARecordingJoinIntoTheRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.record(["whole.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "4"], in: folder)
        try Self.record(["seg-{index}.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "4", "--segment-duration", "1"], in: folder)
        let segments = (1...4).map { "seg-00\($0).mov" }
        let run = try Processes.reel(["join", "joined.mov"] + segments + ["--json"], currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["starts"] as? [Double] == [0, 1, 2, 3] && json["duration"] as? Double == 4 && json["videoFrames"] as? Int == 120
                && json["audioSamples"] as? Int == 192_000, "\(json)")
        let joined = "\(folder)/joined.mov", whole = "\(folder)/whole.mov"
        // Every picture once, in order, as in the recording the segments were cut from; each the segment's packet.
        #expect(try TestInputs.frameNumbers(joined) == TestInputs.frameNumbers(whole))
        #expect(try TestInputs.frameNumbers(joined) == Array(0..<120))
        let copied = try segments.flatMap { try TrimCommandTests.packetHashes("\(folder)/\($0)", stream: "v") }
        #expect(try TrimCommandTests.packetHashes(joined, stream: "v") == copied)
        // Every sample once: as many as the recording's, the tone continuous across the joins (a sample lost or
        // repeated at a join, or a join encoded from silence, would show as an error of the tone's size).
        #expect(try SegmentInspection.playedAudioSamples(joined) == 192_000 && SegmentInspection.playedAudioSamples(whole) == 192_000)
        let played = try SegmentInspection.playedMono(joined, sampleRate: 48_000), recorded = try SegmentInspection.playedMono(whole, sampleRate: 48_000)
        let error = SegmentInspection.worstToneError(played, frequency: 440, sampleRate: 48_000, skip: 1024)
        let recordedError = SegmentInspection.worstToneError(recorded, frequency: 440, sampleRate: 48_000, skip: 1024)
        #expect(error < 0.05 && error < recordedError + 0.03, "joined \(error), recorded \(recordedError)")
        let worst = zip(played, recorded).map { abs($0 - $1) }.max() ?? 1
        #expect(played.count == recorded.count && worst < 0.02, "\(played.count) against \(recorded.count) samples, worst difference \(worst)")
        let problems = try CleanDecode.problems(in: joined)
        #expect(problems.isEmpty, "\(problems)")
        let readers = try IndependentReaders.disagreements(joined, frames: 120, duration: 4)
        #expect(readers.isEmpty, "\(readers)")
        #expect(Scratch.files(in: folder) == ["joined.mov", "seg-001.mov", "seg-002.mov", "seg-003.mov", "seg-004.mov", "whole.mov"])
    }

    /// A take without sound between two with: silent for its span, the next take's tone on time with its pictures.
    @Test func anInputWithoutSoundIsSilentForItsSpan() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.record(["a.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "1"], in: folder)
        try Self.record(["b.mov", "--video", Self.video, "--audio", "none", "--max-duration", "1"], in: folder)
        let run = try Processes.reel(["join", "ab.mov", "a.mov", "b.mov", "a.mov", "--json"], currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["audioSamples"] as? Int == 144_000 && (json["note"] as? String)?.contains("1 input has no sound") == true, "\(json)")
        let played = try SegmentInspection.playedMono("\(folder)/ab.mov", sampleRate: 48_000)
        func loudness(_ range: Range<Int>) -> Float { (played[range].map { $0 * $0 }.reduce(0, +) / Float(range.count)).squareRoot() }
        #expect(played.count == 144_000)
        #expect(loudness(2_000..<46_000) > 0.05 && loudness(50_000..<94_000) < 0.001 && loudness(98_000..<142_000) > 0.05,
                "\(loudness(2_000..<46_000)) \(loudness(50_000..<94_000)) \(loudness(98_000..<142_000))")
        #expect(try TestInputs.frameNumbers("\(folder)/ab.mov") == Array(0..<30) + Array(0..<30) + Array(0..<30))
    }

    /// Movies encoded otherwise (another size and encoder settings, without sound; an ffmpeg-made 320x240 clip
    /// at 25 fps with mono 44.1 kHz sound) are encoded again to match the first: scaled to its size with its encoder's own options,
    /// under its one sample description; the first's pictures are copied; the sound is converted and encoded once.
    @Test func moviesEncodedOtherwiseAreEncodedAgainToMatchTheFirst() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.record(["a.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "1"], in: folder)
        // Another size of the same shape and other encoder settings (the picture is rescaled, not boxed again).
        try #"{"name": "odd", "video": {"size": "440x360", "fps": 30, "speedPreset": "ultrafast", "crf": 30, "profile": "high", "keyframeInterval": 15}, "#
            .appending(#""audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}"#).write(toFile: "\(folder)/odd.json", atomically: true, encoding: .utf8)
        let big = try Processes.reel(["record", "big.mov", "--video", Self.video, "--audio", "none", "--max-duration", "1", "--preset", "odd.json", "--quiet"],
                                     currentDirectory: folder)
        #expect(big.status == 0, "\(big.standardError)")
        let clip = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "25"), "-f", "lavfi",
                                                          "-i", "sine=frequency=440:sample_rate=44100", "-t", "1", "-c:v", "libx264", "-s", "320x240",
                                                          "-c:a", "aac", "-ac", "1", "\(folder)/clip.mov"])
        #expect(clip.status == 0, "\(clip.standardError)")
        let run = try Processes.reel(["join", "all.mov", "a.mov", "big.mov", "clip.mov", "--json"], currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["videoFrames"] as? Int == 85 && json["audioSamples"] as? Int == 144_000 && json["starts"] as? [Double] == [0, 1, 2], "\(json)")
        #expect((json["note"] as? String)?.contains("inputs 2, 3 is encoded again") == true, "\(json)")
        let all = "\(folder)/all.mov"
        let numbers = try TestInputs.frameNumbers(all)
        #expect(numbers == Array(0..<30) + Array(0..<30) + Array(0..<25), "\(numbers)")
        #expect(Array(try TrimCommandTests.packetHashes(all, stream: "v").prefix(30)) == (try TrimCommandTests.packetHashes("\(folder)/a.mov", stream: "v")))
        let stream = try #require(try FFprobe.stream(all, type: "video"))
        #expect(stream["width"] as? Int == 352 && stream["height"] as? Int == 288)
        #expect(try SegmentInspection.playedAudioSamples(all) == 144_000)
        let problems = try CleanDecode.problems(in: all)
        #expect(problems.isEmpty, "\(problems)")
        let gstreamer = try IndependentReaders.gstreamer(all)
        #expect(gstreamer.videoFrames == 85 && abs(gstreamer.duration - 3) < 0.05 && gstreamer.problems.isEmpty, "\(gstreamer)")
    }

    @Test func badInputsAreOneLineAndExitTwo() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.record(["a.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "1"], in: folder)
        _ = FileManager.default.createFile(atPath: "\(folder)/taken.mov", contents: Data("keep".utf8))
        // H.264 whose encoder's options are not in the stream (x264's SEI left out, as another encoder's would be).
        let foreign = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-t", "1",
                                                             "-c:v", "libx264", "-bsf:v", "filter_units=remove_types=6", "\(folder)/foreign.mov"])
        #expect(foreign.status == 0, "\(foreign.standardError)")
        let cases: [([String], String)] = [
            (["out.mov", "a.mov"], "at least two"),
            (["out.mov", "foreign.mov", "a.mov"], "the first movie's encoder settings are unknown"),
            (["a.mov", "a.mov", "a.mov"], "is one of the inputs"),
            (["taken.mov", "a.mov", "a.mov"], "already exists"),
            (["out.mp4", "a.mov", "a.mov"], ".mov"),
            (["out.mov", "a.mov", "missing.mov"], "cannot read"),
        ]
        for (arguments, message) in cases {
            let run = try Processes.reel(["join"] + arguments, currentDirectory: folder)
            #expect(run.status == 2 && run.standardError.contains(message), "\(arguments): \(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        }
        #expect(Scratch.files(in: folder) == ["a.mov", "foreign.mov", "taken.mov"])
        #expect(try String(contentsOfFile: "\(folder)/taken.mov", encoding: .utf8) == "keep")
    }

    /// A join job in a batch: the same movie as the command's, its result in the report; a re-run skips it.
    @Test func aJoinJobInABatch() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.record(["seg-{index}.mov", "--video", Self.video, "--audio", Self.tone, "--max-duration", "2", "--segment-duration", "1"], in: folder)
        try Data(#"{"jobs": [{"name": "both", "type": "join", "inputs": ["seg-001.mov", "seg-002.mov"], "output": "out/{name}.mov"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/jobs.json"))
        let run = try Processes.reel(["batch", "jobs.json", "--json", "--quiet"], currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let entry = try #require((try TestInputs.json(run.standardOutput)["jobs"] as? [[String: Any]])?.first)
        let join = entry["join"] as? [String: Any]
        #expect(entry["status"] as? String == "succeeded" && join?["videoFrames"] as? Int == 60 && join?["audioSamples"] as? Int == 96_000, "\(entry)")
        #expect(try TestInputs.frameNumbers("\(folder)/out/both.mov") == Array(0..<60))
        let again = try Processes.reel(["batch", "jobs.json", "--json", "--quiet"], currentDirectory: folder)
        #expect((try TestInputs.json(again.standardOutput)["jobs"] as? [[String: Any]])?.first?["status"] as? String == "skipped")
        let bad = #"{"jobs": [{"name": "one", "type": "join", "inputs": ["seg-001.mov"], "output": "one.mov"}]}"#
        try Data(bad.utf8).write(to: URL(fileURLWithPath: "\(folder)/bad.json"))
        let refused = try Processes.reel(["batch", "bad.json", "--quiet"], currentDirectory: folder)
        #expect(refused.status == 2 && refused.standardError.contains("jobs.one.inputs: a join job needs at least two movies"), "\(refused.standardError)")
    }
}
