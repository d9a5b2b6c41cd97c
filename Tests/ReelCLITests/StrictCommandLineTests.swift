import Foundation
import ReelTestSupport
import Testing

/// Issue 24, items 14, 16 and 17, as a person meets them on the command line.
@Suite struct StrictCommandLineTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "low"]

    static func jobs(_ json: Any, in folder: String, name: String = "jobs.json") throws {
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
    }

    /// Item 17: loose values are refused with one line that names the option the user gave.
    @Test func looseValuesAreRefused() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hex = try Processes.reel(["record", "a.mov", "--segment-duration", "0x10", "--max-duration", "2"] + Self.fast, currentDirectory: folder)
        #expect(hex.status == 2 && hex.standardError.contains("--segment-duration '0x10'"), "\(hex.standardError)")
        let floor = try Processes.reel(["record", "a.mov", "--keep-free", "1000000G", "--segment-duration", "2", "--max-duration", "2"] + Self.fast,
                                       currentDirectory: folder)
        #expect(floor.status == 2 && floor.standardError.contains("(--keep-free)") && !floor.standardError.contains("min-free"),
                "\(floor.standardError)")
        for (startAt, expected) in [("", "expected a non-empty string"), ("2026-02-30T10:00", "is not a start time")] {
            try Self.jobs(["jobs": [["name": "a", "video": "lavfi:testsrc2", "audio": "none", "maxDuration": 1, "output": "s.mov",
                                     "startAt": startAt]]], in: folder)
            let result = try Processes.reel(["batch", "jobs.json", "--check"], currentDirectory: folder)
            #expect(result.status == 2 && result.standardError.contains(expected), "\(result.standardError)")
            #expect(result.standardError.components(separatedBy: "jobs.a.startAt").count == 2, "the field named once: \(result.standardError)")
        }
        try #"{"jobs": [{"name": "a", "type": "grab", "input": "x.mov", "output": "a.jpg", "output": "b.jpg"}]}"#
            .write(toFile: "\(folder)/twice.json", atomically: true, encoding: .utf8)
        let twice = try Processes.reel(["batch", "twice.json", "--check"], currentDirectory: folder)
        #expect(twice.status == 2 && twice.standardError.contains("\"output\" is given twice"), "\(twice.standardError)")
        #expect(Scratch.files(in: folder) == ["jobs.json", "twice.json"])
    }

    /// Item 16: every legal name works where a hidden temporary name is used; names too long are refused up
    /// front (also by `batch --check`), and an error line quotes at most a bounded part of what it was given.
    @Test func longNamesWorkOrAreRefusedUpFront() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/in.mp4", seconds: 1)
        let name = String(repeating: "n", count: 248)
        let transcode = try Processes.reel(["transcode", "in.mp4", "\(name).mov", "--preset", "low", "--quiet"], currentDirectory: folder)
        #expect(transcode.status == 0, "\(transcode.standardError)")
        let grab = try Processes.reel(["grab", "in.mp4", "\(name).jpg"], currentDirectory: folder)
        #expect(grab.status == 0, "\(grab.standardError)")
        #expect(try MediaInspection(path: "\(folder)/\(name).mov").videoFrames == 15)
        #expect(Scratch.files(in: folder).count == 3, "no hidden file left: \(Scratch.files(in: folder))")

        try Self.jobs(["jobs": [["name": "a", "type": "transcode", "input": "in.mp4", "output": String(repeating: "b", count: 300) + ".mov"]]],
                      in: folder)
        let check = try Processes.reel(["batch", "jobs.json", "--check"], currentDirectory: folder)
        #expect(check.status == 2 && check.standardError.contains("255"), "\(check.standardError)")
        try Self.jobs(["jobs": [["name": "a", "type": "transcode", "input": "in.mp4", "output": String(repeating: "c", count: 2_000_000) + ".mov"]]],
                      in: folder)
        let huge = try Processes.reel(["batch", "jobs.json", "--check"], currentDirectory: folder)
        #expect(huge.status == 2 && huge.standardError.utf8.count < 2500 && huge.standardError.split(separator: "\n").count == 1,
                "\(huge.standardError.utf8.count) bytes")
    }

    /// Item 14: once the program's own code runs (its handler is in place before any library initializer),
    /// SIGUSR1 pauses instead of killing, as SIGINT and SIGTERM stop; only the dynamic loader's first
    /// milliseconds, before any code of the program runs, keep the default action (as for any program).
    @Test func pauseSignalsAreCaughtFromTheStart() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for attempt in 0..<5 {
            let running = try Processes.start(Processes.reelExecutable, ["record", "early\(attempt).mov", "--video", "lavfi:testsrc2",
                                                                         "--audio", "lavfi:sine", "--preset", "low", "--quiet"],
                                              currentDirectory: folder)
            let pid = running.process.processIdentifier
            // The first moment the process catches SIGUSR1 (bit 10 of SigCgt), then at once, and a little later.
            var caught = false
            for _ in 0..<2000 where !caught {
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                let mask = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
                caught = (mask ?? 0) & (1 << (SIGUSR1 - 1)) != 0
                if !caught { usleep(200) }
            }
            #expect(caught)
            usleep(UInt32(attempt) * 3_000)
            kill(pid, SIGUSR1)
            usleep(300_000)
            kill(pid, SIGINT)
            let result = Processes.finish(running, timeout: 20)
            #expect(result.status == 0 || result.status == 1, "attempt \(attempt): exit \(result.status) \(result.standardError)")
        }
    }
}
