import Foundation
import ReelTestSupport
import Testing

/// Issue 14: quality tiers at once. One capture feeds several movies, each at its own preset: every movie
/// starts on the same frame and ends on the same frame (checked by decoding pictures that carry their own
/// number), each has its own size limit and result, a tier in another audio format keeps the sound in
/// place, and the capture is read and decoded once.
@Suite struct TierTests {
    /// A preset file for a tier: 64x64 pictures (square, so the numbers read back without letterbox bars).
    static func tierPreset(in folder: String, size: String = "64x64", audio: String = #"{ "sampleRate": 48000, "channels": 2, "bitrate": "96k" }"#) throws -> String {
        let path = "\(folder)/tier.json"
        try """
            { "name": "tier", "description": "test tier",
              "video": { "size": "\(size)", "fps": 30, "x264Preset": "ultrafast", "crf": 10, "profile": "high", "keyframeInterval": 30 },
              "audio": \(audio) }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func numbers(_ path: String) throws -> [Int] { try TestInputs.frameNumbers(path) }

    @Test(arguments: [false, true])
    func tiersStartAndEndOnTheSameFrame(live: Bool) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try TierTests.tierPreset(in: folder)
        let graph = TestInputs.numberedPictures(rate: "30")
        let result = try Processes.reel(
            ["record", "main.mov", "--video", "lavfi:\(graph)" + (live ? "" : "?realtime=0"), "--audio", "none",
             "--preset", "352x288", "--size", "128x128", "--tier", "\(preset):tier.mov",
             "--max-duration", "2", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let outputs = try #require(json["outputs"] as? [[String: Any]])
        #expect(outputs.count == 2)
        #expect(outputs.map { $0["output"] as? String } == ["\(folder)/main.mov", "\(folder)/tier.mov"])
        #expect(outputs.allSatisfy { $0["stopReason"] as? String == "maxDurationReached" && $0["recordedSuccessfully"] as? Bool == true })
        #expect(json["output"] as? String == "\(folder)/main.mov", "the main movie's fields stay at the top")
        let main = try TierTests.numbers("\(folder)/main.mov")
        let tier = try TierTests.numbers("\(folder)/tier.mov")
        #expect(main.count == 60 && tier.count == 60, "\(main.count) and \(tier.count) frames for 2 s at 30 fps")
        #expect(main.first == tier.first && main.last == tier.last, "first \(main.first ?? -1)/\(tier.first ?? -1), last \(main.last ?? -1)/\(tier.last ?? -1)")
        #expect(main == tier, "every frame the same picture")
        if !live { #expect(main == Array(0..<60), "an unpaced source loses no picture") }
        #expect(outputs.map { $0["videoFrames"] as? Int } == [60, 60])
        let tierStream = try #require(try FFprobe.stream("\(folder)/tier.mov", type: "video"))
        #expect(tierStream["width"] as? Int == 64 && tierStream["height"] as? Int == 64)
    }

    @Test func transcodeWithATierKeepsEveryPictureAndTheSoundInPlace() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Numbered pictures with a 440 Hz tone: the tier resamples the sound to 22050 Hz mono.
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-f", "lavfi", "-i", "sine=frequency=440",
                               "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-c:a", "aac", "\(folder)/in.mp4"])
        let preset = try TierTests.tierPreset(in: folder, audio: #"{ "sampleRate": 22050, "channels": 1, "bitrate": "48k" }"#)
        let result = try Processes.reel(["transcode", "in.mp4", "main.mov", "--preset", "352x288", "--size", "128x128",
                                         "--tier", "\(preset):tier.mov", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let outputs = try #require(try TestInputs.json(result.standardOutput)["outputs"] as? [[String: Any]])
        #expect(outputs.allSatisfy { $0["stopReason"] as? String == "inputEnded" })
        #expect(try TierTests.numbers("\(folder)/main.mov") == Array(0..<90))
        #expect(try TierTests.numbers("\(folder)/tier.mov") == Array(0..<90))
        // The same sound in both (the input's AAC runs a little past 3 s): as long at 48 kHz as at 22.05 kHz.
        let mainSeconds = Double(outputs[0]["audioSamples"] as? Int ?? 0) / 48000
        let tierSeconds = Double(outputs[1]["audioSamples"] as? Int ?? 0) / 22050
        #expect(mainSeconds >= 3 && abs(mainSeconds - tierSeconds) < 0.001, "\(mainSeconds) s and \(tierSeconds) s of sound")
        let audio = try #require(try FFprobe.stream("\(folder)/tier.mov", type: "audio"))
        #expect(audio["sample_rate"] as? String == "22050" && audio["channels"] as? Int == 1)
        // The tone plays on at its pitch, without holes or clicks, in both movies, over the same time.
        for movie in ["main.mov", "tier.mov"] {
            let samples = try TestInputs.monoSamples("\(folder)/\(movie)", sampleRate: 22050, from: 0.1, to: 2.9)
            let frequency = ToneAnalysis.frequency(of: samples, sampleRate: 22050)
            #expect(abs(frequency - 440) < 2, "\(movie): \(frequency) Hz")
            let window = 441
            let levels = stride(from: 0, to: samples.count - window, by: window).map { start in
                sqrt(samples[start..<(start + window)].reduce(0) { $0 + $1 * $1 } / Float(window))
            }
            #expect((levels.min() ?? 0) > 0.5 * (levels.max() ?? 1), "\(movie): the level dips to \(levels.min() ?? 0) of \(levels.max() ?? 0)")
        }
        let gstreamer = try IndependentReaders.gstreamer("\(folder)/tier.mov")
        #expect(gstreamer.problems.isEmpty && gstreamer.videoFrames == 90, "GStreamer: \(gstreamer)")
    }

    @Test func eachMovieHasItsOwnSizeLimit() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 720p reaches 600 kB long before the 2 s are up; the 352x288 tier does not.
        let result = try Processes.reel(["record", "main.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
                                         "--preset", "720p", "--tier", "352x288:tier.mov", "--max-size", "600K",
                                         "--max-duration", "2", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let outputs = try #require(try TestInputs.json(result.standardOutput)["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["stopReason"] as? String } == ["maxFileSizeReached", "maxDurationReached"])
        #expect(outputs[1]["videoFrames"] as? Int == 60)
        for (index, movie) in ["main.mov", "tier.mov"].enumerated() {
            let bytes = try FileManager.default.attributesOfItem(atPath: "\(folder)/\(movie)")[.size] as! Int
            #expect(bytes <= 600_000 && bytes == outputs[index]["bytes"] as? Int, "\(movie): \(bytes) bytes")
            #expect(try CleanDecode.problems(in: "\(folder)/\(movie)") == "", "\(movie) decodes cleanly")
        }
    }

    @Test func badTiersAreUsageErrorsAndNothingIsWritten() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let base = ["record", "main.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none", "--max-duration", "1"]
        for (tier, message) in [("352x288:main.mov", "same file"), ("352x288", "PRESET:PATH"), ("nosuch:x.mov", "nosuch"),
                                ("352x288:proxy.mp4", ".mov"), ("352x288:\(folder)/missing/x.mov", "does not exist")] {
            let result = try Processes.reel(base + ["--tier", tier], currentDirectory: folder)
            #expect(result.status == 2, "--tier \(tier): exit \(result.status)")
            #expect(result.standardError.contains(message), "--tier \(tier): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "one error line: \(result.standardError)")
            #expect(Scratch.files(in: folder).isEmpty, "--tier \(tier) left \(Scratch.files(in: folder))")
        }
    }
}

/// A slow output drops (and counts) its own pictures; the session, the readers and the other movies go on.
/// A live 640x480 test pattern at 120 fps feeds a 64x64 movie (cheap) and a 640x480 tier at x264's veryslow
/// speed, which this machine cannot encode at 120 fps: the tier drops its oldest waiting pictures and still
/// lasts the whole recording; the main movie gets every picture.
@Suite struct SlowOutputTests {
    @Test func aSlowTierDropsItsOwnPicturesOnly() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let slow = "\(folder)/slow.json"
        try """
            { "name": "slow", "description": "slower than the source",
              "video": { "size": "640x480", "fps": 120, "x264Preset": "veryslow", "crf": 18, "profile": "high", "keyframeInterval": 480 },
              "audio": { "sampleRate": 48000, "channels": 2, "bitrate": "96k" } }
            """.write(toFile: slow, atomically: true, encoding: .utf8)
        let result = try Processes.reel(
            ["record", "main.mov", "--video", "lavfi:testsrc2=size=640x480:rate=120", "--audio", "none",
             "--preset", "352x288", "--size", "64x64", "--fps", "120", "--tier", "\(slow):slow.mov", "--max-duration", "2", "--json"],
            currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let outputs = try #require(try TestInputs.json(result.standardOutput)["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["recordedSuccessfully"] as? Bool } == [true, true])
        let main = outputs[0], tier = outputs[1]
        // The main movie keeps up: at most a few pictures lost on a machine whose two cores the tier's encoder
        // saturates (none, most runs), where the tier loses dozens.
        let mainLost = (main["droppedFrames"] as? Int ?? 99) + (main["duplicatedFrames"] as? Int ?? 99)
        #expect(main["videoFrames"] as? Int == 240 && mainLost <= 5, "the main movie lost \(mainLost) pictures: \(main)")
        let tierDropped = tier["droppedFrames"] as? Int ?? -1
        #expect(tierDropped > 24, "the slow tier dropped \(tierDropped)")
        // The slow tier still lasts the whole recording: its pictures repeat where it dropped (constant rate).
        #expect(tier["videoFrames"] as? Int == 240 && tier["stopReason"] as? String == "maxDurationReached", "\(tier)")
        #expect(try CleanDecode.problems(in: "\(folder)/slow.mov") == "")
    }
}
