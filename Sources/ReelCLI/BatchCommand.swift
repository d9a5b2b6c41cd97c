import FoundationEssentials
import Glibc
import Reel
import ReelBatch

/// `reel batch JOBS.json [--parallel N] [--report REPORT.json] [--shard I/N] [--force] [--json] [--quiet]`.
enum BatchCommand {
    static let help = """
        usage: reel batch JOBS.json [--parallel N] [--report REPORT.json] [--shard I/N] [--force] [--json] [--quiet]
               reel batch JOBS.json --check

        Runs the record, transcode, grab, trim and join jobs of a job file (see README, "Batch jobs"), at most N at a time
        (default \(BatchRunner.defaultParallelism) on this machine: one per two cores, as x264 threads too). The whole
        file is validated before anything runs. A failed job does not stop the others. Outputs are written under
        temporary names and renamed when finalized; a re-run skips jobs whose output is already complete, unless
        --force. --shard I/N runs every N-th job starting with the I-th, so N machines (a Slurm job array) together
        run each job once. Ctrl-C/SIGTERM lets running jobs finalize and leaves the rest notRun.
        A record job with startAt (local "2026-11-30T14:05", or "14:05" for the next occurrence) waits for its
        time without taking a slot and then starts whatever else runs; one whose time passed by more than its
        maxDuration is notRun, one started late still ends on time. Segmented jobs (segmentDuration,
        segmentSize) name their files OUTPUT-001.mov ... and run again on a re-run.

          --parallel N        jobs at a time
          --report FILE       write the JSON report there
          --shard I/N         run only this shard (1-based)
          --force             re-run jobs whose output exists
          --check             only validate the job file, say how many jobs it has and print the schedule
          --json              print the JSON report on stdout
          --quiet             no progress line

        exit codes: 0 no job failed, 1 a job failed, 2 bad job file or usage (nothing ran)
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let runner: BatchRunner
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, command: "batch", specification: .init(
                valueOptions: ["--parallel", "--report", "--shard"], flagOptions: ["--force", "--json", "--quiet", "--check"]))
            guard parsed.positionals.count == 1 else { throw UsageError("batch: expected one JOBS.json") }
            let parallel = try parsed.integer("--parallel", in: BatchRunner.parallelismRange) ?? BatchRunner.defaultParallelism
            let shard = try parsed.value("--shard").map(BatchRunner.Shard.init(parsing:))
            if let report = parsed.value("--report") {
                let folder = URL(fileURLWithPath: report).deletingLastPathComponent().path
                guard FileManager.default.fileExists(atPath: folder) else {
                    throw UsageError("--report: folder \(folder) does not exist")
                }
            }
            let jobs = try JobFile.load(path: parsed.positionals[0])
            if parsed.has("--check") {
                Terminal.writeOutput("\(parsed.positionals[0]): \(jobs.count) valid jobs\n")
                // The schedule: when each scheduled recording starts and ends, or why it will not run.
                let now = Date()
                for job in jobs.filter({ $0.startAt != nil }).sorted(by: { $0.startAt! < $1.startAt! }) {
                    let start = job.startAt!, duration = job.limits.maxDuration ?? 0
                    switch JobSchedule.start(start, duration: duration, now: now) {
                    case .missed(let reason):
                        Terminal.writeOutput("  \(job.name): not run: \(reason)\n")
                    case .at:
                        let end = start.addingTimeInterval(duration)
                        Terminal.writeOutput("  \(job.name): \(LocalTime.format("%Y-%m-%d %H:%M:%S", start)) to \(LocalTime.format("%H:%M:%S", end))\(start < now ? " (started late: runs at once)" : "")\n")
                    }
                }
                return .success
            }
            runner = try BatchRunner(jobs: jobs, parallel: parallel, shard: shard, force: parsed.has("--force"))
        } catch {
            return .reporting(error)
        }
        let status = StatusLine(quiet: parsed.has("--quiet"))
        let signals = SignalHandling.shared
        signals.attach(stop: { runner.stop() }, abort: {
            status.clear()
            Terminal.printError("aborted by a second interrupt; unfinished outputs were not kept")
            _exit(ExitCode.interrupted.rawValue)
        })
        if signals.stopRequested { runner.stop() }  // a signal that came while the batch was being read
        let report = runner.run { progress in status.showBatch(progress) }
        status.clear()
        if let path = parsed.value("--report") {
            do {
                try Data(Terminal.json(report).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                Terminal.printError("cannot write the report to \(path): \(error)")
                return .failure
            }
        }
        if parsed.has("--json") { Terminal.writeOutput(Terminal.json(report)) }
        let shardNote = report.shard.map { " (shard \($0))" } ?? ""
        Terminal.writeError("\(report.jobs.count) jobs\(shardNote): \(report.succeeded) succeeded, \(report.failed) failed, \(report.skipped) skipped, \(report.notRun) not run, \(report.notInShard) in other shards — \(String(printf: "%.1f", report.elapsed)) s\n")
        for entry in report.jobs where entry.status == .failed {
            Terminal.writeError("  \(entry.name): \(entry.error ?? "failed")\n")
        }
        return report.failed == 0 ? .success : .failure
    }
}
