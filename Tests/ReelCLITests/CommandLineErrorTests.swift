import Foundation
import ReelTestSupport
import Testing

/// Bad usage and bad input: exit code 2, exactly one line on stderr that says what and how to fix, no file.
@Suite struct CommandLineErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var arguments: [String]
        var mentions: String
        var description: String { arguments.joined(separator: " ") }
    }

    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]

    static let cases: [Case] = [
        Case(arguments: ["record", "out.mov", "--video", "v4l2:/dev/video99"], mentions: "v4l2:/dev/video99"),
        Case(arguments: ["record", "out.mov", "--audio", "alsa:nosuchcard"] + ["--video", "lavfi:testsrc2"], mentions: "alsa:nosuchcard"),
        Case(arguments: ["record", "out.mov", "--video", "webcam0"], mentions: "KIND:TARGET"),
        Case(arguments: ["record", "out.mov", "--preset", "4k"] + fast, mentions: "unknown preset '4k'"),
        Case(arguments: ["record", "out.mov", "--preset", "bad.json"] + fast, mentions: "bad.json: video.fps"),
        Case(arguments: ["record", "out.mov", "--preset", "missing.json"] + fast, mentions: "missing.json"),
        Case(arguments: ["record", "out.mov", "--max-duration", "-1"] + fast, mentions: "--max-duration"),
        Case(arguments: ["record", "out.mov", "--max-duration", "soon"] + fast, mentions: "--max-duration"),
        Case(arguments: ["record", "out.mov", "--max-size", "-5M"] + fast, mentions: "--max-size"),
        Case(arguments: ["record", "out.mov", "--max-size", "10K"] + fast, mentions: "32Ki"),
        Case(arguments: ["record", "out.mov", "--min-free", "lots"] + fast, mentions: "--min-free"),
        Case(arguments: ["record", "out.mov", "--min-free", "1000T"] + fast, mentions: "min-free"),
        Case(arguments: ["record", "out.mov", "--orientation", "sideways"] + fast, mentions: "--orientation"),
        Case(arguments: ["record", "out.mov", "--size", "100x"] + fast, mentions: "--size"),
        Case(arguments: ["record", "out.mov", "--fps", "0"] + fast, mentions: "--fps"),
        Case(arguments: ["record", "out.mov", "--colour"] + fast, mentions: "unknown option --colour"),
        Case(arguments: ["record", "out.mov", "--preset"], mentions: "--preset needs a value"),
        Case(arguments: ["record", "no/such/folder/out.mov"] + fast, mentions: "does not exist"),
        Case(arguments: ["record", "existing.mov"] + fast, mentions: "--overwrite"),
        Case(arguments: ["record", "out.mp4"] + fast, mentions: ".mov"),
        Case(arguments: ["record", "out.mov", "--video", "none", "--audio", "none"], mentions: "nothing to record"),
        Case(arguments: ["record", "out.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine?realtime=0"], mentions: "mix"),
        Case(arguments: ["record", "out.mov", "--video", "lavfi:testsrc2?size=640x480", "--audio", "none"], mentions: "lavfi:testsrc2=size=640x480"),
        Case(arguments: ["record", "out.mov", "--video", "lavfi:nosuchsource", "--audio", "none"], mentions: "check the lavfi filter graph"),
        Case(arguments: ["record", "out.mov", "--video", "lavfi:sine=frequency=300?realtime=0", "--audio", "none"], mentions: "has no video stream"),
        Case(arguments: ["record", "out.mov", "--camera-control", "brightness=1"] + fast, mentions: "V4L2 camera"),
        Case(arguments: ["frobnicate"], mentions: "unknown command"),
        Case(arguments: ["probe", "nothing.mov"], mentions: "nothing.mov"),
    ]

    @Test(arguments: cases)
    func badInputIsOneLineAndExitTwo(_ testCase: Case) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"""
            {"name": "b", "video": {"size": "320x240", "fps": "x", "x264Preset": "veryfast", "crf": 23, "profile": "high",
             "keyframeInterval": 30}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}
            """#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/bad.json"))
        try Data("old".utf8).write(to: URL(fileURLWithPath: "\(folder)/existing.mov"))
        let before = Scratch.files(in: folder)
        let result = try Processes.reel(testCase.arguments, currentDirectory: folder, timeout: 30)
        #expect(result.status == 2, "exit \(result.status): \(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.standardError)")
        #expect(result.standardError.hasPrefix("reel: error: "))
        #expect(result.standardError.contains(testCase.mentions), "stderr: \(result.standardError)")
        #expect(Scratch.files(in: folder) == before, "nothing may be written")
        #expect(try String(contentsOfFile: "\(folder)/existing.mov", encoding: .utf8) == "old")
    }

    @Test func helpListsCommandsAndOptions() throws {
        let top = try Processes.reel(["--help"])
        #expect(top.status == 0 && top.standardOutput.contains("record") && top.standardOutput.contains("devices"))
        let record = try Processes.reel(["record", "--help"])
        for option in ["--max-duration", "--max-size", "--min-free", "--preset", "--orientation", "--json", "exit codes"] {
            #expect(record.standardOutput.contains(option), "record --help lacks \(option)")
        }
        let none = try Processes.reel([])
        #expect(none.status == 2)
    }

    @Test func presetsAndDevicesList() throws {
        let presets = try Processes.reel(["presets", "--json"])
        #expect(presets.status == 0)
        let list = try JSONSerialization.jsonObject(with: Data(presets.standardOutput.utf8)) as? [[String: Any]]
        #expect(list?.count == 11)
        let codecs = (list ?? []).map { ($0["video"] as? [String: Any])?["codec"] as? String ?? "" }
        #expect(codecs.filter { $0 == "hevc" }.count == 2 && codecs.filter { $0 == "h264" }.count == 9, "\(codecs)")
        let latencies = (list ?? []).map { ($0["video"] as? [String: Any])?["latency"] as? String ?? "" }
        #expect(latencies.filter { $0 == "low" }.count == 1 && latencies.filter { $0 == "normal" }.count == 10, "\(latencies)")
        let devices = try Processes.reel(["devices", "--json"])
        #expect(devices.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(devices.standardOutput.utf8)) as? [String: Any]
        #expect(object?["builtIn"] as? [String] == ["lavfi:testsrc2", "lavfi:sine"])
        #expect(object?["cameras"] is [Any] && object?["microphones"] is [Any])
    }
}
