import Foundation
import ReelTestSupport
import Testing

/// Issue 28 on the command line: `reel record --no-movie --replay-buffer` (a session that only buffers),
/// `reel ctl SOCK save-replay`, `--trigger` with the --json result; bad options are usage errors (exit 2)
/// with nothing written.
@Suite(.serialized) struct ReplayCommandTests {
    /// Waits (up to 30 s) until the recording's replay buffer holds `seconds` and `bytes` (`ctl status --json`):
    /// a busy machine starts a recording later, not with less held.
    static func waitUntilHeld(seconds: Double, bytes: Int = 0, socket: String, in folder: String) throws {
        for _ in 0..<150 {
            let status = try ControlSocketTests.ctl([socket, "status", "--json"], in: folder)
            let held = (try? TestInputs.json(status.standardOutput))?["replay"] as? [String: Any]
            if let held, (held["seconds"] as? Double ?? 0) >= seconds, (held["bytes"] as? Int ?? 0) >= bytes { return }
            usleep(200_000)
        }
        Issue.record("the replay buffer did not hold \(seconds) s and \(bytes) bytes within 30 s")
    }

    @Test func aSessionThatOnlyBuffersSavesOverTheSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try ControlSocketTests.startRecording(["--no-movie", "--replay-buffer", "3", "--video", "lavfi:testsrc2=size=160x90:rate=30",
                                                             "--audio", "lavfi:sine", "--preset", "352x288"],
                                                            socket: "cam.sock", in: folder)
        try Self.waitUntilHeld(seconds: 2.5, socket: "cam.sock", in: folder)
        let saved = try ControlSocketTests.ctl(["cam.sock", "save-replay", "last.mov", "2"], in: folder)
        #expect(saved.status == 0 && saved.standardOutput.contains("\(folder)/last.mov: "), "\(saved.standardOutput) \(saved.standardError)")
        let again = try ControlSocketTests.ctl(["cam.sock", "save-replay", "last.mov"], in: folder)
        #expect(again.status == 1 && again.standardError.contains("already exists"), "\(again.standardError)")
        let bad = try ControlSocketTests.ctl(["cam.sock", "save-replay", "last.mp4"], in: folder)
        #expect(bad.status == 2, "\(bad.standardError)")
        #expect(try ControlSocketTests.ctl(["cam.sock", "stop"], in: folder).status == 0)
        let ended = Processes.finish(running, timeout: 20)
        #expect(ended.status == 0, "\(ended.standardError)")
        let result = try TestInputs.json(ended.standardOutput)
        let replays = try #require(result["replays"] as? [[String: Any]], "\(ended.standardOutput)")
        #expect(replays.count == 1 && replays[0]["path"] as? String == "\(folder)/last.mov")
        let seconds = try #require(replays[0]["seconds"] as? Double)
        #expect(seconds >= 2 && seconds < 4)
        let pictures = try TestInputs.videoPacketTimes("\(folder)/last.mov")
        #expect(pictures.count == Int((seconds * 30).rounded()))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["last.mov"], "no movie of its own, nothing hidden left")
    }

    @Test func aTriggeredRecordingListsItsMovies() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let moving = "lavfi:color=gray:size=160x90:rate=30,geq=lum='if(between(T\\,2\\,3)\\,128+60*sin(X/6+T*12)\\,128)':cb=128:cr=128?realtime=0"
        let run = try Processes.reel(["record", "door-{index}.mov", "--video", moving, "--audio", "none", "--preset", "352x288",
                                      "--trigger", "motion:0.05", "--pre-roll", "1", "--post-roll", "0.5", "--max-duration", "6", "--json"],
                                     currentDirectory: folder, timeout: 60)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("reel: motion since 00:02"), "\(run.standardError)")
        let result = try TestInputs.json(run.standardOutput)
        let movies = try #require(result["triggered"] as? [[String: Any]], "\(run.standardOutput)")
        #expect(movies.count == 1 && movies[0]["path"] as? String == "\(folder)/door-001.mov")
        #expect((result["triggers"] as? [[String: Any]])?.first?["kind"] as? String == "motion")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/door-001.mov"))
    }

    /// A camera box on a small disk: `--keep-free` deletes the recording's oldest movies while the movie being
    /// written has less room before the floor than a margin (as loop recording's segments do); the result says
    /// which went.
    @Test func keepFreeDeletesTheOldestTriggeredMovies() throws {
        guard let small = try SmallFilesystem.mount(megabytes: 6, for: "keepFreeDeletesTheOldestTriggeredMovies") else { return }
        defer { small.unmount() }
        // Noise for a second every three: four events in 12 s, each movie about 1.8 MB (the preset's ceiling).
        let noisy = "lavfi:color=gray:size=1280x720:rate=30,geq=lum='if(between(mod(T\\,3)\\,1\\,2)\\,random(1)*255\\,128)':cb=128:cr=128?realtime=0"
        let run = try Processes.reel(["record", "\(small.path)/cam-{index}.mov", "--video", noisy, "--audio", "none", "--preset", "720p",
                                      "--trigger", "motion", "--pre-roll", "0.5", "--post-roll", "0.3", "--keep-free", "3M",
                                      "--max-duration", "12", "--json"], timeout: 120)
        #expect(run.status == 0, "\(run.standardError)")
        let movies = try #require(try TestInputs.json(run.standardOutput)["triggered"] as? [[String: Any]], "\(run.standardOutput)")
        let paths = movies.compactMap { $0["path"] as? String }
        let deleted = movies.filter { $0["deleted"] as? Bool == true }.compactMap { $0["path"] as? String }
        let left = try FileManager.default.contentsOfDirectory(atPath: small.path).filter { !$0.hasPrefix(".") }.map { "\(small.path)/\($0)" }
        #expect(paths.count == 4 && movies.allSatisfy { $0["error"] == nil && $0["stopReason"] == nil }, "\(movies)")
        #expect(!deleted.isEmpty && Set(deleted) == Set(paths).subtracting(left), "deleted \(deleted), left \(left.sorted())")
        #expect(paths.prefix(deleted.count).elementsEqual(deleted), "the oldest went first: \(deleted)")
        #expect(left.contains(paths.last ?? ""))
        for path in left { #expect(try FFprobe.streams(path).count == 1, "\(path) plays") }
    }

    /// A save that would take the disk under the floor (`--min-free`) is refused, and nothing is left behind.
    @Test func aSaveThatWouldCrossTheFloorLeavesNothing() throws {
        guard let small = try SmallFilesystem.mount(megabytes: 4, for: "aSaveThatWouldCrossTheFloorLeavesNothing") else { return }
        defer { small.unmount() }
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try ControlSocketTests.startRecording(["--no-movie", "--replay-buffer", "10", "--video", "lavfi:testsrc2=size=1280x720:rate=30",
                                                             "--audio", "none", "--preset", "720p", "--min-free", "3M"],
                                                            socket: "cam.sock", in: folder)
        // More than the 1.2 MB the 4 MiB disk leaves above the 3 MB floor.
        try Self.waitUntilHeld(seconds: 1, bytes: 2_000_000, socket: "cam.sock", in: folder)
        let saved = try ControlSocketTests.ctl(["cam.sock", "save-replay", "\(small.path)/big.mov"], in: folder)
        #expect(saved.status == 1 && saved.standardError.contains("less free space than the recording's floor"), "\(saved.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty, "nothing left, not even a hidden file")
        #expect(try ControlSocketTests.ctl(["cam.sock", "stop"], in: folder).status == 0)
        #expect(Processes.finish(running, timeout: 20).status == 0)
    }

    @Test func badOptionsAreUsageErrors() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (arguments, message) in [
            (["a.mov", "--replay-buffer-size", "10M"], "add --replay-buffer"),
            (["a.mov", "--replay-buffer", "0.5"], "--replay-buffer"),
            (["a.mov", "--replay-buffer", "5", "--replay-buffer-size", "100k"], "out of range"),
            (["a.mov", "--no-movie"], "add --replay-buffer"),
            (["a.mov", "--no-movie", "--replay-buffer", "5"], "leave out the output"),
            (["--no-movie", "--replay-buffer", "5", "--tier", "352x288:b.mov"], "--tier is for a movie"),
            (["a.mov", "--trigger", "light"], "use motion"),
            (["a.mov", "--trigger", "sound:5"], "not a level"),
            (["a.mov", "--pre-roll", "2"], "add --trigger"),
            (["a.mov", "--trigger", "motion", "--post-roll", "90"], "--post-roll"),
            (["a.mov", "--trigger", "motion", "--segment-duration", "5"], "--segment-duration is for a continuous movie"),
        ] {
            let run = try Processes.reel(["record"] + arguments + ["--video", "lavfi:testsrc2", "--audio", "none"], currentDirectory: folder, timeout: 20)
            #expect(run.status == 2 && run.standardError.contains(message), "\(arguments): \(run.status) \(run.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
