import Foundation
import ReelTestSupport
import Testing

@Suite(.serialized) struct BatchCommandTests {
    static func write(_ json: String, to folder: String, name: String = "jobs.json") throws {
        try json.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8)
    }

    static func report(_ output: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    static func statuses(_ report: [String: Any]) -> [String: String] {
        let jobs = report["jobs"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: jobs.map { ($0["name"] as! String, $0["status"] as! String) })
    }

    @Test func mixedBatchReportsEveryJobAndReRunsSkip() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi",
                                                      "-i", "sine", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                                      "\(folder)/in.mp4"]).status == 0)
        try Self.write("""
            {"defaults": {"preset": "352x288", "minFree": "10M"},
             "jobs": [
              {"name": "cam1", "type": "record", "video": "lavfi:testsrc2?realtime=0", "audio": "lavfi:sine?realtime=0",
               "maxDuration": 1, "maxSize": "10M", "output": "out/{name}.mov", "still": "out/{name}.jpg"},
              {"name": "t1", "type": "transcode", "input": "in.mp4", "preset": "low", "output": "out/{name}-{preset}.mov",
               "tiers": [{"preset": "352x288", "output": "out/{name}-{preset}.mov"}]},
              {"name": "g1", "type": "grab", "input": "in.mp4", "at": 1.5, "output": "out/{name}.jpg"},
              {"name": "lost", "type": "transcode", "input": "missing.mp4", "output": "out/{name}.mov"}]}
            """, to: folder)
        let first = try Processes.reel(["batch", "jobs.json", "--parallel", "2", "--report", "report.json", "--json"],
                                       currentDirectory: folder)
        #expect(first.status == 1, "a failed job makes exit 1: \(first.standardError)")
        let report = try Self.report(first.standardOutput)
        #expect(Self.statuses(report) == ["cam1": "succeeded", "t1": "succeeded", "g1": "succeeded", "lost": "failed"])
        #expect(report["succeeded"] as? Int == 3 && report["failed"] as? Int == 1)
        let fromFile = try Self.report(try String(contentsOfFile: "\(folder)/report.json", encoding: .utf8))
        #expect(Self.statuses(fromFile) == Self.statuses(report))
        let jobs = report["jobs"] as! [[String: Any]]
        let cam = jobs.first { $0["name"] as? String == "cam1" }!
        #expect((cam["result"] as? [String: Any])?["stopReason"] as? String == "maxDurationReached")
        #expect((jobs.first { $0["name"] as? String == "lost" }!["error"] as? String)?.contains("missing.mp4") == true)
        #expect(Scratch.files(in: "\(folder)/out") == ["cam1.jpg", "cam1.mov", "g1.jpg", "t1-352x288.mov", "t1-low.mov"])
        #expect(try MediaInspection(path: "\(folder)/out/t1-low.mov").width == 192)
        #expect(try MediaInspection(path: "\(folder)/out/t1-352x288.mov").width == 352)
        let tiers = (jobs.first { $0["name"] as? String == "t1" }!["result"] as? [String: Any])?["outputs"] as? [[String: Any]]
        #expect(tiers?.map { $0["videoFrames"] as? Int } == [30, 60], "the low preset's 15 fps and 352x288's 30 fps over 2 s")

        let again = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder)
        #expect(Self.statuses(try Self.report(again.standardOutput)) ==
                ["cam1": "skipped", "t1": "skipped", "g1": "skipped", "lost": "failed"])
        let forced = try Processes.reel(["batch", "jobs.json", "--json", "--force"], currentDirectory: folder)
        #expect(Self.statuses(try Self.report(forced.standardOutput))["t1"] == "succeeded")
    }

    @Test func shardsRunEachJobExactlyOnce() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jobs = (1...7).map {
            #"{"name": "r\#($0)", "type": "record", "video": "lavfi:testsrc2?realtime=0", "audio": "none", "preset": "low", "maxDuration": 0.2, "output": "out/{name}.mov"}"#
        }
        try Self.write(#"{"jobs": ["# + jobs.joined(separator: ",") + "]}", to: folder)
        var ranBy: [String: Int] = [:]
        for shard in 1...3 {
            let run = try Processes.reel(["batch", "jobs.json", "--shard", "\(shard)/3", "--json"], currentDirectory: folder)
            #expect(run.status == 0, "\(run.standardError)")
            for (name, status) in Self.statuses(try Self.report(run.standardOutput)) {
                if status == "succeeded" { ranBy[name, default: 0] += 1 } else { #expect(status == "notInShard") }
            }
        }
        #expect(ranBy.count == 7 && ranBy.values.allSatisfy { $0 == 1 }, "\(ranBy)")
        #expect(Scratch.files(in: "\(folder)/out").count == 7)
    }

    @Test func malformedJobFileNamesTheJobAndFieldAndRunsNothing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.write(#"{"jobs": [{"name": "ok", "type": "grab", "input": "x.mp4", "output": "a.jpg"}, {"name": "b", "type": "grab", "input": "x.mp4", "output": "b.jpg", "at": "soon"}]}"#, to: folder)
        let run = try Processes.reel(["batch", "jobs.json"], currentDirectory: folder)
        #expect(run.status == 2)
        #expect(run.standardError == "reel: error: jobs.json: jobs.b.at: expected a number, got \"soon\"\n")
        #expect(Scratch.files(in: folder) == ["jobs.json"])
    }

    @Test func killedBatchLeavesNoFileUnderAFinalName() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.write(#"{"jobs": [{"name": "long", "type": "record", "video": "lavfi:testsrc2?realtime=0", "audio": "lavfi:sine?realtime=0", "preset": "720p", "maxDuration": 120, "output": "out/{name}.mov", "still": "out/{name}.jpg"}]}"#, to: folder)
        let running = try Processes.start(Processes.reelExecutable, ["batch", "jobs.json"], currentDirectory: folder)
        usleep(1_500_000)
        kill(running.process.processIdentifier, SIGKILL)
        _ = Processes.finish(running, timeout: 10)
        let left = Scratch.files(in: "\(folder)/out")
        #expect(!left.contains("long.mov"), "a killed job must not leave its final name: \(left)")
        #expect(left.contains(".long.mov.partial"), "the movie was being written under its temporary name: \(left)")
        // The first-frame still is finished long before the kill, so it may stand under its name, complete.
        for name in left where !name.hasPrefix(".") {
            #expect(name == "long.jpg", "only complete files may have final names: \(left)")
            #expect(try PictureComparison.rgb("\(folder)/out/\(name)").count == 1280 * 720 * 3)
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func interruptFinalizesRunningJobsAndSkipsTheRest(signal: Int32) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jobs = (1...3).map {
            #"{"name": "live\#($0)", "type": "record", "video": "lavfi:testsrc2", "audio": "lavfi:sine", "preset": "low", "maxDuration": 60, "output": "{name}.mov"}"#
        }
        try Self.write(#"{"jobs": ["# + jobs.joined(separator: ",") + "]}", to: folder)
        let running = try Processes.start(Processes.reelExecutable, ["batch", "jobs.json", "--parallel", "1", "--json"],
                                          currentDirectory: folder)
        // Interrupt a second after the first job has started writing (slow builds, e.g. sanitizers, start late).
        #expect(Processes.waitForFile("\(folder)/.live1.mov.partial", seconds: 20), "the first job did not start")
        usleep(1_000_000)
        kill(running.process.processIdentifier, signal)
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try Self.report(result.standardOutput)
        #expect(Self.statuses(report) == ["live1": "succeeded", "live2": "notRun", "live3": "notRun"])
        let first = (report["jobs"] as! [[String: Any]])[0]["result"] as? [String: Any]
        #expect(first?["stopReason"] as? String == "stopped")
        #expect(try MediaInspection(path: "\(folder)/live1.mov").videoFrames > 10)
        #expect(Scratch.files(in: folder) == ["jobs.json", "live1.mov"])
    }

    /// A transcode interrupted by a scheduler's SIGTERM (Slurm's scancel, a preemption) is incomplete: nothing
    /// is kept under its name, it is notRun, and the re-run does it whole instead of skipping it.
    @Test func interruptedTranscodeIsDeletedAndRedone() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Processes.reel(["record", "\(folder)/in.mov", "--video", "lavfi:testsrc2=size=640x480?realtime=0",
                                         "--audio", "lavfi:sine?realtime=0", "--preset", "640x480", "--max-duration", "12", "--quiet"])
        #expect(source.status == 0, "\(source.standardError)")
        try Self.write(#"{"jobs": [{"name": "t", "type": "transcode", "input": "in.mov", "preset": "720p", "output": "out/{name}.mov"}]}"#, to: folder)
        let running = try Processes.start(Processes.reelExecutable, ["batch", "jobs.json", "--json"], currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/out/.t.mov.partial", seconds: 20), "the transcode did not start")
        usleep(300_000)
        kill(running.process.processIdentifier, SIGTERM)
        let stopped = Processes.finish(running, timeout: 20)
        #expect(stopped.status == 0, "\(stopped.standardError)")
        let first = try Self.report(stopped.standardOutput)
        #expect(Self.statuses(first) == ["t": "notRun"], "\(stopped.standardOutput)")
        #expect(((first["jobs"] as! [[String: Any]])[0]["error"] as? String)?.contains("a re-run does it again") == true)
        #expect(Scratch.files(in: "\(folder)/out").isEmpty, "nothing is left of the interrupted transcode")
        let rerun = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder, timeout: 120)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(Self.statuses(try Self.report(rerun.standardOutput)) == ["t": "succeeded"])
        let movie = try MediaInspection(path: "\(folder)/out/t.mov")
        #expect(movie.videoFrames == 360 && abs(movie.audioDuration - 12) < 0.05, "the whole input: \(movie.videoFrames) pictures")
    }

    /// A local ISO 8601 time `seconds` from now, as a job file gives it.
    static func startAt(_ seconds: Double) -> String { schedule(seconds).text }

    /// A start time `seconds` from now, rounded up to the second as written, and the instant it names.
    static func schedule(_ seconds: Double) -> (text: String, date: Date) {
        let instant = Date().addingTimeInterval(seconds).timeIntervalSince1970.rounded(.up)
        var time = time_t(instant)
        var fields = tm()
        localtime_r(&time, &fields)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1,
                          Int(fields.tm_mday), Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec))
        return (text, Date(timeIntervalSince1970: instant))
    }

    /// Issue 15: scheduled record jobs. One starts in 3 s while a one-slot batch is busy with a long job (it
    /// takes no slot); one whose time passed 3 s ago starts at once and ends when it was meant to; one whose
    /// whole window passed is notRun. Issue 24, item 19: only what the product controls is bounded, so a
    /// loaded machine that starts the batch late cannot fail it: a job never starts before its time, and a
    /// late one records no more than what was left of its window when the batch began.
    @Test func scheduledJobsStartOnTime() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let live = #""video": "lavfi:testsrc2=size=160x120", "audio": "lavfi:sine", "preset": "low""#
        let soon = Self.schedule(3), late = Self.schedule(-3)
        try Self.write("""
            {"jobs": [
              {"name": "busy", "type": "record", \(live), "maxDuration": 6, "output": "{name}.mov"},
              {"name": "soon", "type": "record", \(live), "maxDuration": 1, "startAt": "\(soon.text)", "output": "{name}.mov"},
              {"name": "late", "type": "record", \(live), "maxDuration": 8, "startAt": "\(late.text)", "output": "{name}.mov"},
              {"name": "gone", "type": "record", \(live), "maxDuration": 5, "startAt": "\(Self.startAt(-100))", "output": "{name}.mov"}]}
            """, to: folder)
        let check = try Processes.reel(["batch", "jobs.json", "--check"], currentDirectory: folder)
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.standardOutput.contains("soon: ") && check.standardOutput.contains("late: ") && check.standardOutput.contains("started late"),
                "\(check.standardOutput)")
        #expect(check.standardOutput.contains("gone: not run: its start time"), "\(check.standardOutput)")
        let started = Date()
        let result = try Processes.reel(["batch", "jobs.json", "--parallel", "1", "--json"], currentDirectory: folder, timeout: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try Self.report(result.standardOutput)
        var statuses = Self.statuses(report)
        // A batch that began after the late job's whole window (a machine stalled 5 s) rightly leaves it notRun.
        if statuses["late"] == "notRun" && Date().timeIntervalSince(late.date) >= 8 { statuses["late"] = "succeeded" }
        #expect(statuses == ["busy": "succeeded", "soon": "succeeded", "late": "succeeded", "gone": "notRun"])
        let jobs = Dictionary(uniqueKeysWithValues: (report["jobs"] as! [[String: Any]]).map { ($0["name"] as! String, $0) })
        #expect((jobs["gone"]?["error"] as? String)?.contains("more than its 5 s duration") == true, "\(jobs["gone"] ?? [:])")
        func duration(_ name: String) -> Double { (jobs[name]?["result"] as? [String: Any])?["duration"] as? Double ?? -1 }
        // "soon" waited for its time: it was finished no earlier than its start plus what it recorded.
        let soonEnd = try FileManager.default.attributesOfItem(atPath: "\(folder)/soon.mov")[.modificationDate] as! Date
        #expect(duration("soon") > 0 && duration("soon") <= 1.0001, "soon recorded \(duration("soon")) s")
        #expect(soonEnd.timeIntervalSince(soon.date) >= duration("soon") - 0.1, "soon ended \(soonEnd.timeIntervalSince(soon.date)) s after its start")
        // "late" kept its end time: it recorded at most what was left of its 8 s when the batch began.
        if jobs["late"]?["status"] as? String == "succeeded" {
            let left = late.date.addingTimeInterval(8).timeIntervalSince(started)
            #expect(duration("late") > 0 && duration("late") <= left + 0.1, "late recorded \(duration("late")) s of the \(left) s left")
        }
    }

    /// SIGINT while a scheduled job waits ends the batch at once; the job is notRun, with the reason.
    @Test func interruptWhileWaitingLeavesScheduledJobsNotRun() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.write("""
            {"jobs": [{"name": "later", "type": "record", "video": "lavfi:testsrc2", "audio": "none", "preset": "low",
                       "maxDuration": 5, "startAt": "\(Self.startAt(60))", "output": "{name}.mov"}]}
            """, to: folder)
        let running = try Processes.start(Processes.reelExecutable, ["batch", "jobs.json", "--json"], currentDirectory: folder)
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running, timeout: 10)
        #expect(result.status == 0, "\(result.standardError)")
        let job = (try Self.report(result.standardOutput)["jobs"] as? [[String: Any]])?.first
        #expect(job?["status"] as? String == "notRun" && (job?["error"] as? String)?.contains("before its start time") == true, "\(job ?? [:])")
        #expect(Scratch.files(in: folder) == ["jobs.json"])
    }

    /// Segmented jobs: segmentDuration and keepSegments in a job file, files named -001, -002 ...
    @Test func segmentedJobs() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.write("""
            {"jobs": [{"name": "seg", "type": "record", "video": "lavfi:testsrc2=size=160x120?realtime=0", "audio": "lavfi:sine?realtime=0",
                       "preset": "low", "maxDuration": 3.5, "segmentDuration": 1, "keepSegments": 3, "output": "{name}.mov"},
                      {"name": "bad", "type": "record", "video": "lavfi:testsrc2", "maxDuration": 3, "keepSegments": 3, "output": "{name}.mov"}]}
            """, to: folder)
        let invalid = try Processes.reel(["batch", "jobs.json"], currentDirectory: folder)
        #expect(invalid.status == 2 && invalid.standardError.contains("jobs.bad.segmentDuration"), "\(invalid.standardError)")
        try Self.write("""
            {"jobs": [{"name": "seg", "type": "record", "video": "lavfi:testsrc2=size=160x120?realtime=0", "audio": "lavfi:sine?realtime=0",
                       "preset": "low", "maxDuration": 3.5, "segmentDuration": 1, "keepSegments": 3, "output": "{name}.mov"}]}
            """, to: folder)
        let result = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let job = (try Self.report(result.standardOutput)["jobs"] as? [[String: Any]])?.first
        let segments = (job?["result"] as? [String: Any])?["segments"] as? [[String: Any]] ?? []
        #expect(segments.map { $0["videoFrames"] as? Int } == [15, 15, 15, 7])
        #expect(Scratch.files(in: folder) == ["jobs.json", "seg-002.mov", "seg-003.mov", "seg-004.mov"])
    }
}
