import Foundation
import ReelTestSupport
import Testing

@Suite(.serialized) struct RecordCommandTests {
    @Test func jsonResultHasTheContractFields() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "clip.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio",
                                         "lavfi:sine?realtime=0", "--preset", "low", "--max-duration", "1", "--json"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        for field in ["output", "stopReason", "recordedSuccessfully", "duration", "bytes", "videoFrames", "droppedFrames",
                      "audioSamples", "preset", "elapsed"] {
            #expect(json[field] != nil, "missing \(field)")
        }
        #expect(json["stopReason"] as? String == "maxDurationReached")
        #expect(json["videoFrames"] as? Int == 15)
        #expect(json["preset"] as? String == "low")
        #expect(Scratch.files(in: folder) == ["clip.mov"], "no partial file is left behind")
        #expect(result.standardError.isEmpty, "no status line when stderr is not a TTY: \(result.standardError)")
    }

    /// --fragment-interval reaches record and transcode alike (the JSON result counts the fragments).
    @Test func fragmentIntervalAppliesToRecordAndTranscode() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]
        for (command, interval, expected) in [(["record", "r.mov"] + sources, "1", 3), (["transcode", "r.mov", "t.mov"], "0.5", 6),
                                              (["transcode", "r.mov", "u.mov"], "0", 0)] {
            var arguments = command + ["--preset", "low", "--fragment-interval", interval, "--json"]
            if command[0] == "record" { arguments += ["--max-duration", "3"] }
            let result = try Processes.reel(arguments, currentDirectory: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(json["fragments"] as? Int == expected, "\(command[0]) with --fragment-interval \(interval): \(json["fragments"] ?? "none")")
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalFinalizesAPlayableFile(signal: Int32) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(
            Processes.reelExecutable,
            ["record", "live.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "352x288", "--json",
             "--fragment-interval", "1"],
            currentDirectory: folder)
        // Once the file holds a complete fragment (a second of media, however long a slow or sanitized build
        // takes to get there), not after a fixed time.
        let fragment = Data("moof".utf8)
        for _ in 0..<400 {
            if let bytes = FileManager.default.contents(atPath: "\(folder)/live.mov"), bytes.range(of: fragment) != nil { break }
            usleep(50_000)
        }
        usleep(300_000)
        kill(running.process.processIdentifier, signal)
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "exit \(result.status): \(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["stopReason"] as? String == "stopped")
        #expect(json["recordedSuccessfully"] as? Bool == true)
        let movie = try MediaInspection(path: "\(folder)/live.mov")
        #expect(movie.videoFrames > 20 && movie.videoFrames == json["videoFrames"] as? Int)
        #expect(movie.audioSamples > 20_000)
        #expect(Scratch.files(in: folder) == ["live.mov"])
    }

    /// A signal that arrives while the recording is still starting must not be lost (the recording would
    /// otherwise run forever): the process ends promptly either way.
    @Test(arguments: [0, 50_000, 150_000, 300_000])
    func earlySignalIsNotLost(delayMicroseconds: UInt32) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(
            Processes.reelExecutable, ["record", "early.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "low"],
            currentDirectory: folder)
        usleep(delayMicroseconds)
        kill(running.process.processIdentifier, SIGTERM)
        let started = Date()
        let result = Processes.finish(running, timeout: 15)
        #expect(Date().timeIntervalSince(started) < 10, "the process must end soon after SIGTERM")
        // 15: SIGTERM came before the handler was installed and ended the process by default; nothing was written.
        #expect([0, 1, 15].contains(result.status), "exit \(result.status): \(result.standardError)")
        if result.status != 0 { #expect(!Scratch.files(in: folder).contains("early.mov")) }
        // Once the handler is in place, a stop waits for the first picture: the file is playable.
        if result.status == 0 { #expect(try MediaInspection(path: "\(folder)/early.mov").videoFrames > 0) }
    }

    /// Two interrupts in a row: either the first one's finalization won (a playable file, exit 0) or the
    /// second aborted it (exit 130, and nothing at all is left behind).
    @Test func secondInterruptAbortsCleanly() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(
            Processes.reelExecutable,
            ["record", "twice.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "720p"],
            currentDirectory: folder)
        usleep(1_500_000)
        kill(running.process.processIdentifier, SIGINT)
        // Apart, so that they are two signals: two pending SIGINTs merge into one.
        usleep(5_000)
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running, timeout: 20)
        switch result.status {
        case 0: #expect(try MediaInspection(path: "\(folder)/twice.mov").videoFrames > 0)
        case 130:
            // Recordings are written under their final name with fragments (the default): before the first
            // fragment the file holds the header only (and the space reserved for completing it), kept as it is;
            // on a slow machine (a sanitizer) the second signal can come later, when fragments or the finished
            // movie are there: whatever it is, it plays.
            #expect(Scratch.files(in: folder) == ["twice.mov"], "left: \(Scratch.files(in: folder))")
            let atoms = Atoms.topLevel(path: "\(folder)/twice.mov").map(\.type)
            let headerOnly = atoms == ["ftyp", "moov", "free"]
            #expect(try headerOnly || CleanDecode.problems(in: "\(folder)/twice.mov").isEmpty, "\(atoms)")
            #expect(result.standardError.contains("aborted"))
        default: Issue.record("exit \(result.status): \(result.standardError)")
        }
    }

    @Test func overwriteReplacesAnExistingFile() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: "\(folder)/clip.mov"))
        let result = try Processes.reel(["record", "clip.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                         "--preset", "low", "--max-duration", "0.5", "--overwrite", "--size", "320x240",
                                         "--fps", "10"], currentDirectory: folder)
        #expect(result.status == 0)
        let movie = try MediaInspection(path: "\(folder)/clip.mov")
        #expect(movie.width == 320 && movie.height == 240 && movie.videoFrames == 5 && movie.audioCodec == nil)
    }
}
