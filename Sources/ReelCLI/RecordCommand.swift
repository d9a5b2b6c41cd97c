import FoundationEssentials
import Glibc
@_spi(ReelTools) import Reel
import ReelControl
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
        \(RecordingOptions.liveHelp)
        \(RecordingOptions.alarmHelp)
        \(ReplayOptions.help)
        \(TriggerOptions.help)
        live control:
          --control PATH         listen on a Unix socket (mode 0600, removed at the end) for commands from
                                 reel ctl PATH ... or any program speaking its JSON lines: status, stop, pause,
                                 resume, photo FILE, switch-video SPEC|none, switch-audio SPEC|none,
                                 camera-control NAME=VALUE, save-replay FILE.mov [S], subscribe (see README,
                                 "Live control")

        exit codes: 0 finalized (also when a limit or a signal stopped it), 1 runtime failure,
                    2 bad usage or input (nothing written), 3 with --alarm-exit: finalized, an alarm still on,
                    130 a second Ctrl-C (with fragments the file is kept and plays up to its last fragment)
        The movie is written in fragments under its final name (see --fragment-interval): after a crash or
        kill -9 it plays up to the last fragment; a clean stop turns it into a regular movie in place.
        SIGUSR1 (kill -USR1 PID) pauses the recording and the next one resumes it: the paused time is cut out of
        every movie, audio and video together, with no hole; --max-duration counts recorded media.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let specification = ParsedArguments.Specification(valueOptions: RecordingOptions.valueOptions.union(RecordingOptions.segmentOptions)
                                                              .union(RecordingOptions.liveOptions).union(RecordingOptions.alarmOptions)
                                                              .union(ReplayOptions.valueOptions).union(TriggerOptions.valueOptions).union(["--control"]),
                                                          flagOptions: RecordingOptions.flagOptions.union(RecordingOptions.liveFlagOptions)
                                                              .union(RecordingOptions.alarmFlagOptions).union(ReplayOptions.flagOptions))
        var options: RecordingOptions
        let control: String?
        do {
            let parsed = try ParsedArguments(arguments, command: "record", specification: specification)
            guard parsed.positionals.count <= 1 else {
                throw UsageError("record: expected one output file, got \(parsed.positionals.joined(separator: " "))")
            }
            // Without a movie of its own (--no-movie) nothing is named; ReplayOptions refuses an output then.
            let noMovie = parsed.has("--no-movie") && parsed.positionals.isEmpty
            let output = noMovie ? "" : try parsed.positionals.first ?? defaultOutputPath()
            if !noMovie { try RecordingOptions.checkMovieOutput(output, command: "record") }
            options = try RecordingOptions(parsed, outputPath: output)
            try ReplayOptions.apply(parsed, to: &options.configuration, hasOutput: !parsed.positionals.isEmpty)
            try TriggerOptions.apply(parsed, to: &options.configuration)
            control = parsed.value("--control")
        } catch {
            return .reporting(error)
        }
        let result: RecordingResult
        do {
            result = try record(options.configuration, quiet: options.quiet, pausesOnSignal: true, control: control)
        } catch {
            return .reporting(error, floorOption: options.floorOption)
        }
        return report(result, json: options.json, alarmExit: options.alarmExit)
    }

    /// The input's duration, when a transcode knows it, turns the status line into a progress line with an ETA.
    /// `pausesOnSignal`: SIGUSR1 pauses and resumes (`reel record`). `control`: the path of a control socket
    /// to listen on while recording.
    static func record(_ configuration: RecordingConfiguration, quiet: Bool, pausesOnSignal: Bool = false,
                       control: String? = nil) throws -> RecordingResult {
        let session = CaptureSession()
        // The socket listens before the recording starts (a path in use is a usage error, nothing recorded);
        // requests are served once it runs (a client that connects early waits for its reply).
        let server = try control.map { path in
            // `ctl photo NAME` goes beside the recording (as `ctl --help` says), not in reel's working folder.
            try ControlSocketServer(path: path, controller: SessionController(
                session: session, folder: configuration.recordsMovie ? URL(fileURLWithPath: configuration.outputPath).deletingLastPathComponent().path
                                                                     : FileManager.default.currentDirectoryPath))
        }
        defer { server?.finish() }
        let status = StatusLine(quiet: quiet)
        let limit = configuration.limits.maxDuration
        let writing = configuration.writingPath
        let keepsFragments = writing == configuration.outputPath
        let signals = SignalHandling.shared
        let togglePause: @Sendable () -> Void = {
            if session.status.state == .paused { session.resumeRecording() } else { session.pauseRecording() }
        }
        signals.attach(stop: { session.stop() }, abort: {
            status.clear()
            if !configuration.recordsMovie {
                Terminal.printError("aborted by a second interrupt")
            } else if keepsFragments {
                // The file is a valid fragmented movie, or already a regular one: finalization's switch is a
                // single 8-byte write in the first sector. Leave it as it is.
                Terminal.printError("aborted by a second interrupt; \(writing) holds the fragments written so far")
            } else {
                unlink(writing)
                Terminal.printError("aborted by a second interrupt; \(writing) removed, nothing was kept")
            }
            _exit(ExitCode.interrupted.rawValue)
        }, togglePause: pausesOnSignal ? togglePause : nil)
        // The sound is metered when something shows it: the status line's bars, the control socket's levels.
        var configuration = configuration
        configuration.metersLevels = status.isEnabled || control != nil
        try session.start(configuration) { event in
            server?.publish(event)
            if case .liveStopped(let live) = event {
                status.clear()
                Terminal.writeError("reel: warning: live stream \(live.destination) stopped: \(live.error ?? "?"); the movie records on\n")
            }
            if case .liveConnection(let connection) = event, !quiet {
                status.clear()
                Terminal.writeError("reel: \(connection.text)\n")
            }
            if case .levels(let levels) = event { status.show(levels) }
            if let line = RecordCommand.triggerLine(event), !quiet {
                status.clear()
                Terminal.writeError(line + "\n")
            }
            if case .videoInput(let change) = event {
                status.clear()
                Terminal.writeError("reel: \(RecordCommand.videoInputText(change))\n")
            }
            if let line = RecordCommand.alarmLine(event), !quiet {
                status.clear()
                Terminal.writeError(line + "\n")
            }
            guard case .progress(let progress) = event else { return }
            if let inputDuration = progress.inputDuration {
                status.showProgress(progress, total: min(inputDuration, limit ?? .infinity))
            } else {
                status.show(progress, limit: limit)
            }
        }
        server?.start()
        if signals.stopRequested { session.stop() }  // a signal that came while the session was starting
        let result = session.waitUntilFinished()
        // The session's own finished event may still be on its way: subscribers get the result once.
        server?.publish(.finished(result))
        status.clear()
        return result
    }

    /// A live stream's line under the movie's: what it carried, and how its connection went.
    static func summary(of live: LiveResult) -> String {
        var text = "\(live.destination): \(String(printf: "%.2f", live.duration)) s, \(ByteCount.format(live.bytes))"
        if live.kind == "hls" { text += ", \(live.segments) segment\(live.segments == 1 ? "" : "s")" }
        if let parts = live.parts { text += " in \(parts) part\(parts == 1 ? "" : "s")" }
        if let connected = live.connectedSeconds {
            text += live.bytes == 0 && live.error == nil ? ", never connected" : ", connected \(String(printf: "%.1f", connected)) s"
            if let reconnects = live.reconnects, reconnects > 0 { text += ", \(reconnects) reconnection\(reconnects == 1 ? "" : "s")" }
        }
        if live.droppedPackets > 0 { text += ", \(live.droppedPackets) packets dropped" }
        if let error = live.error { text += " — stopped: \(error)" }
        return text
    }

    /// `reel: alarm silence since 00:12: every channel below -60 dBFS`, `reel: alarm silence over (00:12-00:31)`.
    static func alarmLine(_ event: RecordingEvent) -> String? {
        switch event {
        case .alarmStarted(let alarm): "reel: alarm \(alarm.kind.rawValue) since \(StatusLine.clock(alarm.start)): \(alarm.detail)"
        case .alarmEnded(let alarm):
            "reel: alarm \(alarm.kind.rawValue) over (\(StatusLine.clock(alarm.start))-\(StatusLine.clock(alarm.end ?? alarm.start)))"
                + (alarm.clippedSamples.map { ", \($0) samples clipped" } ?? "")
        default: nil
        }
    }

    /// `video input 2 (v4l2:/dev/video2) lost: delivered nothing for 2 s; its place shows a placeholder`.
    static func videoInputText(_ change: VideoInputChange) -> String {
        change.lost ? "warning: video input \(change.input) (\(change.spec)) lost: \(change.reason ?? "?"); its place shows a placeholder, the recording goes on"
                    : "video input \(change.input) (\(change.spec)) is back"
    }

    /// `reel: motion since 00:04`, `reel: motion over (00:04-00:06)`, `reel: event-001.mov: 4.00 s (00:03-00:07), 1.2 MB`.
    static func triggerLine(_ event: RecordingEvent) -> String? {
        switch event {
        case .triggerStarted(let trigger): "reel: \(trigger.kind.rawValue) since \(StatusLine.clock(trigger.start))"
        case .triggerEnded(let trigger): "reel: \(trigger.kind.rawValue) over (\(StatusLine.clock(trigger.start))-\(StatusLine.clock(trigger.end ?? trigger.start)))"
        case .triggeredMovie(let movie): "reel: " + triggeredText(movie)
        default: nil
        }
    }

    static func triggeredText(_ movie: TriggeredMovie) -> String {
        "\(movie.path): \(String(printf: "%.2f", movie.seconds)) s (\(StatusLine.clock(movie.start))-\(StatusLine.clock(movie.end))), "
            + "\(ByteCount.format(movie.bytes))" + (movie.error.map { " — failed: \($0)" } ?? movie.stopReason.map { " — \($0.rawValue)" } ?? "")
    }

    static func report(_ result: RecordingResult, json: Bool, alarmExit: Bool = false) -> ExitCode {
        if json { Terminal.writeOutput(Terminal.json(result)) }
        // A session without a movie (--no-movie) fails only when its inputs did.
        let noMovie = result.output.isEmpty
        guard result.recordedSuccessfully || (noMovie && result.stopReason != .failed) else {
            Terminal.printError("recording failed (\(result.stopReason.rawValue)): \(result.error ?? "no usable file was produced")")
            return .failure
        }
        if !json && noMovie {
            // A session without a movie (--no-movie): what its replay buffer saved.
            let saves = result.replays ?? []
            if let movies = result.triggered {
                Terminal.writeError("reel: \(result.stopReason.rawValue) after \(String(printf: "%.1f", result.elapsed)) s; "
                                    + "\(movies.count) triggered movie\(movies.count == 1 ? "" : "s")\n")
                for movie in movies { Terminal.writeError(triggeredText(movie) + "\n") }
            } else {
                Terminal.writeError("reel: \(result.stopReason.rawValue) after \(String(printf: "%.1f", result.elapsed)) s; "
                                    + "\(saves.count) replay\(saves.count == 1 ? "" : "s") saved\n")
            }
        } else if !json {
            for output in result.outputs ?? [result] {
                Terminal.writeError(
                    "\(output.output): \(String(printf: "%.2f", output.duration)) s, \(ByteCount.format(output.bytes)), \(output.videoFrames) frames, \(output.droppedFrames) dropped — \(output.stopReason.rawValue)\n")
            }
            for live in result.live ?? [] { Terminal.writeError(RecordCommand.summary(of: live) + "\n") }
        }
        if !json { for save in result.replays ?? [] { Terminal.writeError("replay: " + CtlCommand.text(of: save) + "\n") } }
        // A size segment never drops a picture to stay under --segment-size; one that had to pass it says so.
        for segment in (result.outputs ?? [result]).flatMap({ $0.segments ?? [] }) {
            if let over = segment.bytesOverSize {
                Terminal.writeError("reel: note: \(segment.output) is \(ByteCount.format(segment.bytes)), \(ByteCount.format(over)) over "
                                    + "--segment-size: the pictures already in the encoder at the cut were larger than foreseen, "
                                    + "and are kept rather than dropped\n")
            }
        }
        // A tier that failed while the main movie is fine still fails the command: the user asked for it.
        if let failed = result.outputs?.first(where: { !$0.recordedSuccessfully }) {
            Terminal.printError("\(failed.output) failed (\(failed.stopReason.rawValue)): \(failed.error ?? "no usable file was produced")")
            return .failure
        }
        return alarmVerdict(result, alarmExit: alarmExit, what: "recording")
    }

    /// A recording that ended with an alarm still on: a warning line, or with --alarm-exit an error and exit 3.
    static func alarmVerdict(_ result: RecordingResult, alarmExit: Bool, what: String) -> ExitCode {
        guard let on = result.alarms?.filter({ $0.end == nil }), !on.isEmpty else { return .success }
        let names = on.map { "\($0.kind.rawValue) since \(StatusLine.clock($0.start))" }.joined(separator: ", ")
        Terminal.writeError("reel: \(alarmExit ? "error" : "warning"): the \(what) ended with an alarm on: \(names)\n")
        return alarmExit ? .alarm : .success
    }

    private static func defaultOutputPath() throws -> String {
        let folder = "recordings"
        try FileSystem.createFolders(folder)
        return "\(folder)/recording-\(LocalTime.format("%Y%m%d-%H%M%S")).mov"
    }
}
