import Foundation
import ReelTestSupport
import Testing

/// Issue 27: `--alarm` on the command line: one line on stderr as each alarm starts and ends, the `alarms`
/// of the --json result, `--alarm-exit` making a recording that ended with an alarm on exit 3 (documented);
/// bad rules are usage errors with nothing written.
@Suite struct AlarmCommandTests {
    static let silentLater = "lavfi:aevalsrc=if(gte(t\\,1)\\,0\\,0.1*sin(2*PI*440*t)):s=48000"

    @Test func anAlarmStillOnAtTheEndIsExitThreeWithAlarmExit() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let common = ["--video", "none", "--audio", AlarmCommandTests.silentLater, "--preset", "352x288", "--max-duration", "2.5",
                      "--alarm", "silence:-60:0.5", "--json"]
        let strict = try Processes.reel(["record", "strict.mov"] + common + ["--alarm-exit"], currentDirectory: folder, timeout: 30)
        #expect(strict.status == 3, "exit \(strict.status): \(strict.standardError)")
        #expect(strict.standardError.contains("reel: alarm silence since 00:01: every channel below -60 dBFS"), "\(strict.standardError)")
        #expect(strict.standardError.contains("reel: error: the recording ended with an alarm on: silence since 00:01"))
        let result = try TestInputs.json(strict.standardOutput)
        let alarms = try #require(result["alarms"] as? [[String: Any]], "\(strict.standardOutput)")
        #expect(alarms.count == 1 && alarms[0]["kind"] as? String == "silence" && alarms[0]["end"] == nil, "\(alarms)")
        #expect(abs((alarms[0]["start"] as? Double ?? 0) - 1) <= 0.2)
        #expect(FileManager.default.fileExists(atPath: "\(folder)/strict.mov"), "the movie is kept: exit 3 is not a failure to record")
        let lenient = try Processes.reel(["record", "lenient.mov"] + common, currentDirectory: folder, timeout: 30)
        #expect(lenient.status == 0 && lenient.standardError.contains("reel: warning: the recording ended with an alarm on"),
                "\(lenient.status) \(lenient.standardError)")
    }

    /// A batch job with `alarmExit` that ends with an alarm on fails (its movie kept), so the batch exits 1.
    @Test func aBatchJobWithAlarmExitFailsOnAnAlarmStillOn() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jobs = """
            {"jobs": [{"name": "mic", "type": "record", "video": "none", "audio": "\(AlarmCommandTests.silentLater.replacingOccurrences(of: "\\", with: "\\\\"))",
                       "preset": "352x288", "maxDuration": 2.5, "output": "mic.mov", "alarms": ["silence:-60:0.5"], "alarmExit": true}]}
            """
        try jobs.write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        let run = try Processes.reel(["batch", "jobs.json", "--json"], currentDirectory: folder, timeout: 60)
        #expect(run.status == 1, "exit \(run.status): \(run.standardError)")
        let job = (try TestInputs.json(run.standardOutput)["jobs"] as? [[String: Any]])?.first
        #expect(job?["status"] as? String == "failed" && (job?["error"] as? String)?.contains("ended with an alarm on: silence since 1.") == true,
                "\(job ?? [:])")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/mic.mov"), "the movie is kept")
    }

    @Test func badRulesAreUsageErrors() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (arguments, message) in [(["--alarm", "loud"], "unknown kind 'loud'"), (["--alarm", "silence", "--alarm", "silence:-50"], "given twice"),
                                     (["--alarm-exit"], "needs an alarm"), (["--alarm", "black:3"], "threshold must be from 0 to 1")] {
            let run = try Processes.reel(["record", "x.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--max-duration", "1"] + arguments,
                                         currentDirectory: folder, timeout: 30)
            #expect(run.status == 2 && run.standardError.contains(message), "\(arguments): \(run.status) \(run.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/x.mov"), "nothing written")
    }
}
