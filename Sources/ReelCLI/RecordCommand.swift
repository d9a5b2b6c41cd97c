import FoundationEssentials
import Glibc
import Reel
import Synchronization

/// `reel record [OUTPUT.mov] [options]`: records until a limit, the input's end, or SIGINT/SIGTERM.
enum RecordCommand {
    static let help = """
        usage: reel record [OUTPUT.mov] [options]

        Records a QuickTime movie (H.264 or HEVC, by the preset, + AAC) from a camera, microphone, screen or test source. Stops at a
        limit, when the input ends, or on Ctrl-C / SIGTERM; the file is finalized and playable in every case.
        Without OUTPUT, writes recordings/recording-YYYYMMDD-HHMMSS.mov.

        options:
        \(RecordingOptions.help)
        \(RecordingOptions.segmentHelp)

        exit codes: 0 finalized (also when a limit or a signal stopped it), 1 runtime failure,
                    2 bad usage or input (nothing written),
                    130 a second Ctrl-C (with fragments the file is kept and plays up to its last fragment)
        The movie is written in fragments under its final name (see --fragment-interval): after a crash or
        kill -9 it plays up to the last fragment; a clean stop turns it into a regular movie in place.
        SIGUSR1 (kill -USR1 PID) pauses the recording and the next one resumes it: the paused time is cut out of
        every movie, audio and video together, with no hole; --max-duration counts recorded media.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let specification = ParsedArguments.Specification(valueOptions: RecordingOptions.valueOptions.union(RecordingOptions.segmentOptions),
                                                          flagOptions: RecordingOptions.flagOptions)
        let options: RecordingOptions
        do {
            let parsed = try ParsedArguments(arguments, command: "record", specification: specification)
            guard parsed.positionals.count <= 1 else {
                throw UsageError("record: expected one output file, got \(parsed.positionals.joined(separator: " "))")
            }
            let output = try parsed.positionals.first ?? defaultOutputPath()
            try RecordingOptions.checkMovieOutput(output, command: "record")
            options = try RecordingOptions(parsed, outputPath: output)
        } catch {
            return .reporting(error)
        }
        let result: RecordingResult
        do {
            result = try record(options)
        } catch {
            return .reporting(error)
        }
        return report(result, json: options.json)
    }

    /// Runs a session with signal handling and the status line; shared by the commands that record.
    static func record(_ options: RecordingOptions) throws -> RecordingResult {
        try record(options.configuration, quiet: options.quiet, pausesOnSignal: true)
    }

    /// The input's duration, when a transcode knows it, turns the status line into a progress line with an ETA.
    /// `pausesOnSignal`: SIGUSR1 pauses and resumes (`reel record`).
    static func record(_ configuration: RecordingConfiguration, quiet: Bool, pausesOnSignal: Bool = false) throws -> RecordingResult {
        let session = CaptureSession()
        let status = StatusLine(quiet: quiet)
        let limit = configuration.limits.maxDuration
        let writing = configuration.writingPath
        let keepsFragments = writing == configuration.outputPath
        let signals = SignalHandling.shared
        let paused = Atomic<Int>(0)  // SIGUSR1s so far: odd while paused
        let togglePause: @Sendable () -> Void = {
            if paused.add(1, ordering: .relaxed).newValue % 2 == 1 { session.pauseRecording() } else { session.resumeRecording() }
        }
        signals.attach(stop: { session.stop() }, abort: {
            status.clear()
            if keepsFragments {
                // The file is a valid fragmented movie, or already a regular one: finalization's switch is a
                // single 8-byte write in the first sector. Leave it as it is.
                Terminal.printError("aborted by a second interrupt; \(writing) holds the fragments written so far")
            } else {
                unlink(writing)
                Terminal.printError("aborted by a second interrupt; \(writing) removed, nothing was kept")
            }
            _exit(ExitCode.interrupted.rawValue)
        }, togglePause: pausesOnSignal ? togglePause : nil)
        try session.start(configuration) { event in
            guard case .progress(let progress) = event else { return }
            if let inputDuration = progress.inputDuration {
                status.showProgress(progress, total: min(inputDuration, limit ?? .infinity))
            } else {
                status.show(progress, limit: limit)
            }
        }
        if signals.stopRequested { session.stop() }  // a signal that came while the session was starting
        let result = session.waitUntilFinished()
        status.clear()
        return result
    }

    static func report(_ result: RecordingResult, json: Bool) -> ExitCode {
        if json { Terminal.writeOutput(Terminal.json(result)) }
        guard result.recordedSuccessfully else {
            Terminal.printError("recording failed (\(result.stopReason.rawValue)): \(result.error ?? "no usable file was produced")")
            return .failure
        }
        if !json {
            for output in result.outputs ?? [result] {
                Terminal.writeError(
                    "\(output.output): \(String(printf: "%.2f", output.duration)) s, \(ByteCount.format(output.bytes)), \(output.videoFrames) frames, \(output.droppedFrames) dropped — \(output.stopReason.rawValue)\n")
            }
        }
        // A tier that failed while the main movie is fine still fails the command: the user asked for it.
        if let failed = result.outputs?.first(where: { !$0.recordedSuccessfully }) {
            Terminal.printError("\(failed.output) failed (\(failed.stopReason.rawValue)): \(failed.error ?? "no usable file was produced")")
            return .failure
        }
        return .success
    }

    private static func defaultOutputPath() throws -> String {
        let folder = "recordings"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return "\(folder)/recording-\(LocalTime.format("%Y%m%d-%H%M%S")).mov"
    }
}
