import Reel
import ReelControl
import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// Runs batch jobs, at most `parallel` at a time, each on a thread of its own: a failed job does not stop the
/// others; a finished output is skipped on re-runs unless forced; `stop()` (SIGINT) lets running jobs
/// finalize and marks the rest notRun. Outputs are written under temporary names and renamed when
/// finalized, so a crash never leaves a half file under a final name. Scheduled record jobs (`startAt`) wait on
/// a scheduler thread without taking a slot, and start at their time whatever else runs (a live source cannot
/// wait for a slot).
public final class BatchRunner: Sendable {
    public struct Shard: Sendable, Equatable, CustomStringConvertible {
        public var index: Int
        public var count: Int

        /// "I/N", 1-based: job k (1-based, in file order) belongs to shard ((k - 1) mod N) + 1.
        public init(parsing text: String) throws {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
                  (1...count).contains(index) else {
                throw ReelError.invalidInput("shard '\(text)' is not I/N with 1 ≤ I ≤ N (e.g. 2/8)")
            }
            self.index = index
            self.count = count
        }

        public func contains(_ job: BatchJob) -> Bool { (job.index - 1) % count + 1 == index }
        public var description: String { "\(index)/\(count)" }
    }

    /// Progress for a status line: jobs finished so far and the names of those running.
    public struct Progress: Sendable {
        public var finished: Int
        public var total: Int
        public var running: [String]
    }

    /// One job at a time for each two cores: x264 already spreads one encode over several threads.
    /// Jobs at once: each is a thread with its own encoders, so thousands would only exhaust memory.
    public static let parallelismRange: ClosedRange<Int> = 1...256
    public static var defaultParallelism: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }

    private let jobs: [BatchJob]
    private let parallel: Int
    private let shard: Shard?
    private let force: Bool
    /// The run's state; a stop wakes the scheduler waiting in it for a start time.
    private let state = Locked<RunState>(RunState())

    private struct RunState {
        var next = 0
        var stopping = false
        var entries: [Int: BatchReport.Entry] = [:]
        var sessions: [String: CaptureSession] = [:]
        var finished = 0
    }

    public init(jobs: [BatchJob], parallel: Int = BatchRunner.defaultParallelism, shard: Shard? = nil, force: Bool = false) throws {
        guard BatchRunner.parallelismRange.contains(parallel) else {
            throw ReelError.invalidInput("parallelism \(parallel) is out of range: use \(BatchRunner.parallelismRange.lowerBound) to \(BatchRunner.parallelismRange.upperBound) jobs at once")
        }
        self.jobs = jobs
        self.parallel = parallel
        self.shard = shard
        self.force = force
    }

    /// Stops gracefully: running recordings and transcodes finalize; jobs not started become notRun.
    public func stop() {
        // Wakes the scheduler, which waits for a start time.
        let sessions = state.withLockNotifying { state -> [CaptureSession] in
            state.stopping = true
            return Array(state.sessions.values)
        }
        for session in sessions { session.stop() }
    }

    /// Runs the jobs (blocking) and returns the report. `progress` is called as jobs start and finish.
    public func run(progress: @escaping @Sendable (Progress) -> Void = { _ in }) -> BatchReport {
        let started = MonotonicClock.nanoseconds()
        let chosen = jobs.filter { shard?.contains($0) ?? true }
        let selected = chosen.filter { $0.startAt == nil }
        let scheduled = chosen.filter { $0.startAt != nil }.sorted { $0.startAt! < $1.startAt! }
        let scheduler = scheduled.isEmpty ? nil : WorkerThread(name: "reel.batch.scheduler") { [self] in
            runScheduled(scheduled, progress: progress, total: chosen.count)
        }
        let workers = (0..<min(parallel, max(selected.count, 1))).map { worker in
            WorkerThread(name: "reel.batch.\(worker)") { [self] in
                while let job = takeNext(selected) {
                    run(job, progress: progress, total: chosen.count)
                }
            }
        }
        for worker in workers { worker.join() }
        scheduler?.join()
        let entries = state.withLock { $0.entries }
        let all = jobs.map { job -> BatchReport.Entry in
            if let entry = entries[job.index] { return entry }
            let status: BatchReport.Status = (shard?.contains(job) ?? true) ? .notRun : .notInShard
            let reason = status == .notRun && job.startAt != nil ? "the batch was stopped before its start time" : nil
            return BatchReport.Entry(name: job.name, type: job.kind, status: status, output: job.output, result: nil,
                                     error: reason, elapsed: 0)
        }
        return BatchReport(jobs: all, elapsed: Double(MonotonicClock.nanoseconds() - started) / 1e9,
                           shard: shard?.description)
    }

    private func run(_ job: BatchJob, progress: @Sendable (Progress) -> Void, total: Int) {
        report(progress, total: total)
        let entry = execute(job)
        state.withLock {
            $0.entries[job.index] = entry
            $0.sessions[job.name] = nil
            $0.finished += 1
        }
        report(progress, total: total)
    }

    /// Waits for each scheduled job's time (in order) and starts it on a thread of its own; one whose time
    /// passed by more than its duration is notRun, one that starts late ends when it was meant to. A stop
    /// while waiting leaves the waiting jobs notRun.
    private func runScheduled(_ jobs: [BatchJob], progress: @escaping @Sendable (Progress) -> Void, total: Int) {
        var running: [WorkerThread] = []
        for job in jobs {
            guard let start = job.startAt, let duration = job.limits.maxDuration else { continue }
            // Waits in steps of at most a second, so a change of the wall clock is noticed.
            while Date() < start {
                let wait = min(1, start.timeIntervalSinceNow)
                let deadline = MonotonicClock.nanoseconds() + Int64(max(0.001, wait) * 1e9)
                if state.wait(until: { $0.stopping ? true : nil }, deadline: deadline) == true { break }
            }
            if state.withLock({ $0.stopping }) { break }
            switch JobSchedule.start(start, duration: duration, now: Date()) {
            case .missed(let reason):
                state.withLock {
                    $0.entries[job.index] = BatchReport.Entry(name: job.name, type: job.kind, status: .notRun, output: job.output,
                                                              result: nil, error: reason, elapsed: 0)
                    $0.finished += 1
                }
                report(progress, total: total)
            case .at:
                var due = job
                // Late (the batch started after its time): it still ends when it was meant to.
                let late = Date().timeIntervalSince(start)
                if late > 0.5 { due.limits.maxDuration = duration - late }
                let ready = due
                running.append(WorkerThread(name: "reel.batch.\(job.name)") { [self] in run(ready, progress: progress, total: total) })
            }
        }
        for thread in running { thread.join() }
    }

    private func takeNext(_ selected: [BatchJob]) -> BatchJob? {
        state.withLock { state in
            guard !state.stopping, state.next < selected.count else { return nil }
            defer { state.next += 1 }
            return selected[state.next]
        }
    }

    private func report(_ progress: @Sendable (Progress) -> Void, total: Int) {
        let snapshot = state.withLock { Progress(finished: $0.finished, total: total, running: $0.sessions.keys.sorted()) }
        progress(snapshot)
    }

    /// Runs one job and reports it with the wall time it took.
    private func execute(_ job: BatchJob) -> BatchReport.Entry {
        let started = MonotonicClock.nanoseconds()
        var entry = perform(job)
        entry.elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e9
        return entry
    }

    private func perform(_ job: BatchJob) -> BatchReport.Entry {
        var entry = BatchReport.Entry(name: job.name, type: job.kind, status: .succeeded, output: job.output, result: nil,
                                      error: nil, elapsed: 0)
        do {
            if !force {
                // Done by an earlier run: every movie (each segment of a segmented one) is there and opens.
                let plan = job.outputPlan
                let movies = plan.names.filter { !$0.replaces }
                let existing = plan.existingFiles().filter { !$0.name.replaces }
                if movies.allSatisfy({ name in existing.contains { $0.name.path == name.path } })
                    && existing.allSatisfy({ BatchRunner.isComplete($0.file) }) {
                    entry.status = .skipped
                    return entry
                }
                // Never replaced without --force: a file at one of the job's names that is not its finished work.
                if let (name, file) = existing.first {
                    throw ReelError(.outputExists, "\(ErrorText.path(file)) already exists\(name.isPattern ? " (a segment of \(ErrorText.path(name.path)))" : ""), and the job would replace it: delete it, or run with --force")
                }
            }
            try FileSystem.createFolders(URL(fileURLWithPath: job.output).deletingLastPathComponent().path)
            if let still = job.still {
                try FileSystem.createFolders(URL(fileURLWithPath: still.path).deletingLastPathComponent().path)
            }
            switch job.kind {
            case .grab:
                try FrameGrabber.grab(inputPath: job.input!, at: job.at,
                                      to: StillRequest(path: job.output, quality: job.quality, overwrite: true))
            case .trim:
                entry.trim = try Trimmer.trim(TrimRequest(input: job.input!, output: job.output, from: job.trimSpan!.lowerBound,
                                                          to: job.trimSpan!.upperBound, mode: job.trimMode, overwrite: true))
            case .join:
                entry.join = try Joiner.join(JoinRequest(inputs: job.joinInputs, output: job.output, overwrite: true))
            case .record, .transcode:
                let result = try record(job)
                entry.result = result
                if job.kind == .transcode && result.stopReason == .stopped && !result.recordedSuccessfully {
                    // Interrupted (Ctrl-C, a scheduler's SIGTERM): nothing is kept, so a re-run does it again.
                    entry.status = .notRun
                    entry.error = "stopped before the end of its input; the incomplete output was deleted and a re-run does it again"
                } else if !result.recordedSuccessfully {
                    entry.status = .failed
                    entry.error = result.error ?? "no usable file was produced (\(result.stopReason.rawValue))"
                } else if job.alarmExit, let on = result.alarms?.filter({ $0.end == nil }), !on.isEmpty {
                    // The movie is kept; the job failed its purpose (a dead microphone, a capped lens).
                    entry.status = .failed
                    entry.error = "the recording ended with an alarm on: "
                        + on.map { "\($0.kind.rawValue) since \(NumberText.fixed($0.start, decimals: 1)) s (\($0.detail))" }.joined(separator: ", ")
                }
            }
        } catch {
            entry.status = .failed
            entry.error = "\(error)"
        }
        return entry
    }

    private func record(_ job: BatchJob) throws -> RecordingResult {
        var still = job.still
        still?.overwrite = true
        var configuration: RecordingConfiguration
        if job.kind == .transcode {
            let request = Transcoder.Request(inputPath: job.input!, outputPath: job.output, preset: job.preset!,
                                             limits: job.limits, overwrite: true, firstFrameStill: still)
            configuration = Transcoder.configuration(for: request)
        } else {
            configuration = RecordingConfiguration(outputPath: job.output, video: job.video, audio: job.audio,
                                                   preset: job.preset!, limits: job.limits, orientation: job.orientation,
                                                   overwrite: true, firstFrameStill: still)
        }
        configuration.additionalVideo = job.additionalVideo
        configuration.additionalAudio = job.additionalAudio
        configuration.audioTracks = job.audioTracks
        configuration.layout = job.layout
        configuration.overlays = job.overlays
        configuration.pictureFilters = job.pictureFilters
        configuration.fragmentInterval = job.fragmentInterval
        configuration.deviceTimeout = job.deviceTimeout
        configuration.cameraControls = job.cameraControls
        configuration.tiers = job.tiers
        configuration.live = job.live
        configuration.livePushes = job.livePushes
        configuration.alarms = job.alarms
        configuration.replayBuffer = job.replayBuffer.map { ReplayBuffer(seconds: $0, maxBytes: job.replayBufferSize ?? ReplayBuffer.defaultMaxBytes) }
        configuration.segmentation = job.segmentation
        // Outputs appear under their final names only once finalized: that is what lets a re-run skip them.
        configuration.writesUnderFinalName = false
        configuration.discardsStoppedMovie = job.kind == .transcode
        let session = CaptureSession()
        let stopping = state.withLock { state -> Bool in
            state.sessions[job.name] = session
            return state.stopping
        }
        if stopping { throw ReelError.runtime("the batch was stopped before this job started") }
        let server = try job.control.map { path in
            try ControlSocketServer(path: path, controller: SessionController(session: session, folder: URL(fileURLWithPath: job.output).deletingLastPathComponent().path))
        }
        defer { server?.finish() }
        try session.start(configuration) { event in server?.publish(event) }
        server?.start()
        if state.withLock({ $0.stopping }) { session.stop() }  // a stop that raced with the start
        let result = session.waitUntilFinished()
        server?.publish(.finished(result))
        return result
    }

    /// An output from an earlier run counts as done when it exists and FFmpeg can open it (every output is
    /// renamed into place only once finalized, so a file under the final name is complete).
    static func isComplete(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        return (try? MediaProbe.describe(path: path)).map { !$0.streams.isEmpty } ?? false
    }
}
