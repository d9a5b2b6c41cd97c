import Foundation
import ReelTestSupport
import Testing

/// `reel record` with several `--video` inputs and `--layout`, as a user runs it: mistakes are one line and
/// exit 2 with nothing written.
@Suite struct ComposeCommandTests {
    static let numbered = "lavfi:" + TestInputs.numberedPictures(rate: "30") + "?realtime=0"

    @Test(arguments: [
        (["--video", "none", "--video", "lavfi:testsrc2?realtime=0"], "--video none leaves the picture out"),
        (["--video", "lavfi:testsrc2?realtime=0", "--video", "lavfi:testsrc2?realtime=0", "--layout", "only:3"], "--layout: layout only:3: there are 2 video inputs"),
        (["--video", "lavfi:testsrc2?realtime=0", "--layout", "mosaic"], "--layout: unknown layout 'mosaic'"),
        (["--video", "lavfi:testsrc2?realtime=0", "--layout", "missing.json"], "layout file missing.json cannot be read"),
        (["--video", "lavfi:testsrc2?realtime=0", "--video", "lavfi:testsrc2"], "cannot mix a live source with an unpaced one"),
        (Array(repeating: ["--video", "lavfi:testsrc2?realtime=0"], count: 9).flatMap { $0 }, "9 --video inputs: at most 8"),
    ])
    func mistakesAreOneLineAndWriteNothing(_ example: ([String], String)) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Processes.reel(["record", "\(folder)/out.mov", "--audio", "none", "--max-duration", "1"] + example.0, currentDirectory: folder)
        #expect(run.status == 2 && run.standardError.contains(example.1), "\(run.status) \(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// Two inputs and the default layout (pip), with the JSON result and status naming them.
    @Test func twoInputsRecordAsOnePicture() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/pip.mov"
        let run = try Processes.reel(["record", output, "--video", Self.numbered, "--video", "lavfi:testsrc2=size=320x240:rate=15?realtime=0",
                                      "--audio", "lavfi:sine?realtime=0", "--size", "256x128", "--max-duration", "2", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["videoFrames"] as? Int == 60 && json["audioSamples"] as? Int == 96_000, "\(json)")
        let pictures = try ComposedPictures(output)
        // pip: the first input fills the picture's height (a 128x128 square in the middle), the second is a
        // 64x32 window at the bottom right over it.
        #expect(pictures.frames.indices.map { pictures.number($0, x: 64, y: 0, side: 128) } == Array(0..<60))
        #expect(pictures.meanLuma(59, x: 0, y: 0, width: 48, height: 128) < 20, "black beside the square")
        #expect(pictures.meanLuma(59, x: 196, y: 96, width: 40, height: 24) > 40, "the window")
        let problems = try CleanDecode.problems(in: output)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A record job with lists of video and sound inputs, a layout, an overlay and a filter, as `reel batch` runs it.
    @Test func aJobComposesItsVideoList() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = #"{"name": "small", "video": {"size": "256x128", "fps": 30, "codec": "h264", "speedPreset": "ultrafast", "crf": 23, "profile": "high", "keyframeInterval": 30}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}"#
        try preset.write(toFile: "\(folder)/small.json", atomically: true, encoding: .utf8)
        let jobs = """
            {"jobs": [{"name": "sides", "type": "record", "output": "sides.mov", "preset": "small.json", "maxDuration": 1,
                       "video": ["\(Self.numbered)", "lavfi:\(TestInputs.numberedPictures(rate: "30", offset: 100))?realtime=0"],
                       "audio": ["lavfi:sine?realtime=0", "lavfi:sine=frequency=1000?realtime=0&gain=-6dB"], "layout": "side-by-side", "overlays": ["text:%{frame}?at=bottom-right&size=0.1"], "filters": ["denoise"]},
                      {"name": "tracks", "type": "record", "output": "tracks.mov", "preset": "small.json", "maxDuration": 1,
                       "video": "lavfi:testsrc2?realtime=0", "audio": ["lavfi:sine?realtime=0", "lavfi:sine=frequency=1000?realtime=0&name=Room"],
                       "audioTracks": "separate"}]}
            """
        try jobs.write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        let run = try Processes.reel(["batch", "\(folder)/jobs.json", "--quiet"])
        #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        let pictures = try ComposedPictures("\(folder)/sides.mov")
        #expect(pictures.frames.count == 30)
        #expect(pictures.frames.indices.map { pictures.number($0, x: 0, y: 0, side: 128) } == Array(0..<30))
        #expect(pictures.frames.indices.map { pictures.number($0, x: 128, y: 0, side: 128) } == Array(100..<130))
        // The two sound inputs, mixed into one second of one track.
        #expect(try SegmentInspection.playedAudioSamples("\(folder)/sides.mov") == 48_000)
        // The other job's two sound inputs, a track each.
        let tracks = try FFprobe.streams("\(folder)/tracks.mov").filter { $0["codec_type"] as? String == "audio" }
        #expect(tracks.map { ($0["tags"] as? [String: Any])?["handler_name"] as? String } == ["lavfi:sine", "Room"], "\(tracks)")
        for (mistake, key) in [("\"layout\": \"only:3\"", "layout"), ("\"layout\": \"side-by-side\", \"audioTracks\": \"both\"", "audioTracks")] {
            let broken = jobs.replacingOccurrences(of: "\"layout\": \"side-by-side\"", with: mistake)
            try broken.write(toFile: "\(folder)/broken.json", atomically: true, encoding: .utf8)
            let refused = try Processes.reel(["batch", "\(folder)/broken.json", "--check"])
            #expect(refused.status == 2 && refused.standardError.contains(key), "\(refused.standardError)")
        }
    }
}
