import Foundation
import ReelTestSupport
import Testing

/// Issue 24, items 1-5: nothing a command writes meets an input, another output or an existing file; each
/// is refused before anything is written (exit 2), and what is there is left byte for byte as it was.
@Suite struct OutputCollisionTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]

    static func checksum(_ path: String) throws -> String {
        try Processes.run("/usr/bin/sha256sum", [path]).standardOutput
    }

    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    /// Item 1: an input named like a later segment.
    @Test func anInputNamedLikeALaterSegmentIsRefused() throws {
        try Self.withFolder { folder in
            try FileManager.default.createDirectory(atPath: "\(folder)/d", withIntermediateDirectories: true)
            try TestInputs.movie("\(folder)/d/src-002.mov", seconds: 3)
            let before = try Self.checksum("\(folder)/d/src-002.mov")
            let result = try Processes.reel(["transcode", "d/src-002.mov", "d/src.mov", "--segment-duration", "1", "--overwrite", "--quiet"],
                                            currentDirectory: folder)
            #expect(result.status == 2 && result.standardError.contains("input"), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
            #expect(Scratch.files(in: "\(folder)/d") == ["src-002.mov"])
            #expect(try Self.checksum("\(folder)/d/src-002.mov") == before)
        }
    }

    /// Item 4: a tier whose name is the main movie's segment pattern.
    @Test func aTierNamedLikeTheMoviesSegmentsIsRefused() throws {
        try Self.withFolder { folder in
            let result = try Processes.reel(["record", "r.mov", "--max-duration", "2", "--segment-duration", "1",
                                             "--tier", "low:r-{index}.mov", "--quiet"] + Self.fast, currentDirectory: folder)
            #expect(result.status == 2 && result.standardError.contains("same file"), "\(result.standardError)")
            #expect(Scratch.files(in: folder).isEmpty)
        }
    }

    /// Item 5: an existing file at a later segment's name, for a recording and a transcode.
    @Test(arguments: ["record", "transcode"])
    func anExistingLaterSegmentIsRefusedUpFront(_ command: String) throws {
        try Self.withFolder { folder in
            try TestInputs.movie("\(folder)/in.mp4", seconds: 3)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(folder)/b-002.mov"))
            let arguments = command == "record" ? ["record", "b.mov", "--max-duration", "3"] + Self.fast
                                                : ["transcode", "in.mp4", "b.mov"]
            let result = try Processes.reel(arguments + ["--segment-duration", "1", "--quiet"], currentDirectory: folder)
            #expect(result.status == 2 && result.standardError.contains("b-002.mov"), "\(result.standardError)")
            #expect(Scratch.files(in: folder) == ["b-002.mov", "in.mp4"])
            #expect(try String(contentsOfFile: "\(folder)/b-002.mov", encoding: .utf8) == "mine")
        }
    }

    /// Item 5, at run time: a file that appears at the next segment's name after the start (another program,
    /// or a {time} field's new value) is not replaced; the segment takes the free name beside it, and the
    /// result says so. Every segment is complete and nothing is lost at the joins.
    @Test func aNameTakenWhileRecordingGetsTheNextFreeName() throws {
        try Self.withFolder { folder in
            let running = try Processes.start(Processes.reelExecutable, [
                "record", "c.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "low",
                "--max-duration", "3", "--segment-duration", "1", "--json"], currentDirectory: folder)
            #expect(Processes.waitForFile("\(folder)/c-001.mov"))
            try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(folder)/c-002.mov"))
            let result = Processes.finish(running, timeout: 30)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try String(contentsOfFile: "\(folder)/c-002.mov", encoding: .utf8) == "mine")
            let json = try TestInputs.json(result.standardOutput)
            let outputs = (json["segments"] as? [[String: Any]] ?? []).compactMap { $0["output"] as? String }
            #expect(outputs.map { URL(fileURLWithPath: $0).lastPathComponent } == ["c-001.mov", "c-002 (2).mov", "c-003.mov"])
            var frames = 0
            for output in outputs {
                let movie = try MediaInspection(path: output)
                #expect(try CleanDecode.problems(in: output).isEmpty)
                frames += movie.videoFrames
            }
            #expect(frames == json["videoFrames"] as? Int && frames == 45, "3 s at the low preset's 15 fps")
        }
    }

    /// Items 2 and 3: a batch checks every job's files against every other job's files and inputs.
    @Test func batchJobsNeverWriteAnotherJobsFiles() throws {
        try Self.withFolder { folder in
            try TestInputs.movie("\(folder)/x.mov", seconds: 2)
            try TestInputs.movie("\(folder)/y.mov", seconds: 2, size: "352x288")
            let sums = try ["x.mov", "y.mov"].map { try Self.checksum("\(folder)/\($0)") }
            let batches = [
                "swap": #"[{"name":"a","type":"transcode","input":"x.mov","output":"y.mov"},{"name":"b","type":"transcode","input":"y.mov","output":"x.mov"}]"#,
                "own": #"[{"name":"a","type":"transcode","input":"x.mov","output":"x.mov"}]"#,
                "segments": #"[{"name":"a","type":"transcode","input":"x.mov","output":"o/s.mov","segmentDuration":1},{"name":"b","type":"transcode","input":"y.mov","output":"o/s-002.mov"}]"#,
            ]
            for (name, jobs) in batches.sorted(by: { $0.key < $1.key }) {
                try #"{"defaults": {"preset": "low"}, "jobs": \#(jobs)}"#.write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
                for extra in [[], ["--force", "--parallel", "2"]] {
                    let result = try Processes.reel(["batch", "\(name).json"] + extra, currentDirectory: folder)
                    #expect(result.status == 2, "\(name) \(extra): \(result.standardError)")
                    #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
                }
            }
            #expect(try ["x.mov", "y.mov"].map { try Self.checksum("\(folder)/\($0)") } == sums)
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/o"))
        }
    }

    /// Item 2: a segmented job does not replace a file at one of its segment names without --force; a
    /// finished one is skipped on a re-run; --force redoes it.
    @Test func segmentedJobsReplaceNothingWithoutForce() throws {
        try Self.withFolder { folder in
            try TestInputs.movie("\(folder)/x.mov", seconds: 3)
            try FileManager.default.createDirectory(atPath: "\(folder)/o", withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(folder)/o/s-002.mov"))
            try #"{"jobs": [{"name":"a","type":"transcode","input":"x.mov","preset":"low","output":"o/s.mov","segmentDuration":1}]}"#
                .write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
            let blocked = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder)
            #expect(blocked.status == 1)
            let entry = (try TestInputs.json(blocked.standardOutput)["jobs"] as? [[String: Any]])?.first
            #expect(entry?["status"] as? String == "failed" && (entry?["error"] as? String)?.contains("s-002.mov") == true)
            #expect(Scratch.files(in: "\(folder)/o") == ["s-002.mov"])
            #expect(try String(contentsOfFile: "\(folder)/o/s-002.mov", encoding: .utf8) == "mine")

            try FileManager.default.removeItem(atPath: "\(folder)/o/s-002.mov")
            #expect(try Processes.reel(["batch", "jobs.json", "--quiet"], currentDirectory: folder).status == 0)
            #expect(Scratch.files(in: "\(folder)/o") == ["s-001.mov", "s-002.mov", "s-003.mov"])
            let again = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder)
            #expect((try TestInputs.json(again.standardOutput)["jobs"] as? [[String: Any]])?.first?["status"] as? String == "skipped")
            let forced = try Processes.reel(["batch", "jobs.json", "--json", "--force"], currentDirectory: folder)
            #expect((try TestInputs.json(forced.standardOutput)["jobs"] as? [[String: Any]])?.first?["status"] as? String == "succeeded")
        }
    }
}
