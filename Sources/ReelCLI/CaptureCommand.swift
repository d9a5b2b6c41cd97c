import Dispatch
import FoundationEssentials
import Glibc
import Reel
import ReelControl
import Synchronization

/// `reel capture BASENAME [--hold-threshold SECONDS] [record options]`: tap → BASENAME.jpg, hold → BASENAME.mov.
enum CaptureCommand {
    static let help = """
        usage: reel capture BASENAME [--hold-threshold SECONDS] [record options]

        "Tap = photo, hold = video": records until stopped (Ctrl-C, SIGTERM, Enter when stdin is a terminal,
        or --max-duration). If the recording lasted less than the hold threshold (default 1 s) it was a tap:
        BASENAME.jpg gets the first captured frame and no movie is kept. Otherwise BASENAME.mov is kept (and,
        with --still FILE, also the first-frame picture).

        options:
          --hold-threshold SECONDS  shorter than this is a tap (default 1)
          --control PATH            a control socket while the press lasts (reel ctl PATH status|stop|photo ...;
                                    see reel record --help)
        \(RecordingOptions.help)
        \(RecordingOptions.liveHelp)
          A tap keeps its live stream (the press as it was seen); only the movie is dropped.
        \(RecordingOptions.alarmHelp)
          --replay-buffer S, --replay-buffer-size BYTES
                                    keep the press's last S seconds in memory: reel ctl PATH save-replay FILE.mov [SECONDS]
                                    writes them while it records (see reel record --help)
        exit codes: 0 a photo or movie kept, 1 runtime failure, 2 bad usage (nothing written),
                    3 with --alarm-exit: kept, but an alarm was still on at the end, 130 a second Ctrl-C
        """

    struct Report: Encodable {
        var kind: String
        var photo: String?
        var movie: String?
        var recording: RecordingResult

        func encode(to encoder: any Encoder) throws {
            // The recording's fields sit beside kind/photo/movie in one flat object, as record --json prints them.
            try recording.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(photo, forKey: .photo)
            try container.encode(movie, forKey: .movie)
        }

        enum Keys: String, CodingKey { case kind, photo, movie }
    }

    static func run(_ arguments: [String]) -> ExitCode {
        var valueOptions = RecordingOptions.valueOptions.union(RecordingOptions.liveOptions).union(RecordingOptions.alarmOptions)
        valueOptions.insert("--hold-threshold")
        valueOptions.insert("--control")
        let capture: PressCapture
        let options: RecordingOptions
        let server: ControlSocketServer?
        do {
            let parsed = try ParsedArguments(arguments, command: "capture",
                                             specification: .init(valueOptions: valueOptions.union(ReplayOptions.valueOptions), flagOptions: RecordingOptions.flagOptions
                                                 .union(RecordingOptions.liveFlagOptions).union(RecordingOptions.alarmFlagOptions)))
            guard parsed.positionals.count == 1, let basename = parsed.positionals.first else {
                throw UsageError("capture: expected one BASENAME (writes BASENAME.jpg or BASENAME.mov)")
            }
            let threshold = try parsed.number("--hold-threshold", in: PressCapture.holdThresholdRange)
                ?? PressCapture.defaultHoldThreshold
            var chosen = try RecordingOptions(parsed, outputPath: basename + ".mov")
            // The press's movie keeps its last seconds too, saved over --control (save-replay).
            try ReplayOptions.apply(parsed, to: &chosen.configuration, hasOutput: true)
            options = chosen
            capture = try PressCapture(basename: basename, holdThreshold: threshold, configuration: options.configuration)
            server = try parsed.value("--control").map { path in
                try ControlSocketServer(path: path, controller: SessionController(
                    session: capture.session, folder: URL(fileURLWithPath: basename).deletingLastPathComponent().path))
            }
        } catch {
            return .reporting(error)
        }
        defer { server?.finish() }
        let status = StatusLine(quiet: options.quiet)
        let limit = options.configuration.limits.maxDuration
        let signals = SignalHandling.shared
        signals.attach(stop: { capture.endPress() }, abort: {
            status.clear()
            Terminal.printError("aborted by a second interrupt; nothing was kept")
            _exit(ExitCode.interrupted.rawValue)
        })
        let keyboard = EnterKeyStop { capture.endPress() }
        let outcome: CaptureOutcome
        do {
            try capture.beginPress { event in
                server?.publish(event)
                if case .progress(let progress) = event { status.show(progress, limit: limit) }
                if case .levels(let levels) = event { status.show(levels) }
                if let line = RecordCommand.alarmLine(event), !options.quiet {
                    status.clear()
                    Terminal.writeError(line + "\n")
                }
            }
            server?.start()
            // A signal or Enter that came while the press was starting found nothing to stop: stop now.
            if signals.stopRequested || keyboard.stopRequested { capture.endPress() }
            outcome = try capture.waitForOutcome()
            server?.publish(.finished(outcome.recording))
        } catch {
            return .reporting(error)
        }
        status.clear()
        withExtendedLifetime(keyboard) {}
        if options.json {
            Terminal.writeOutput(Terminal.json(Report(kind: outcome.kind.rawValue, photo: outcome.photo, movie: outcome.movie,
                                                      recording: outcome.recording)))
        }
        guard outcome.recording.recordedSuccessfully, outcome.photo != nil || outcome.movie != nil else {
            Terminal.printError("capture failed (\(outcome.recording.stopReason.rawValue)): \(outcome.recording.error ?? "nothing was kept")")
            return .failure
        }
        if !options.json {
            let kept = outcome.kind == .photo ? "photo \(outcome.photo!)" : "movie \(outcome.movie!)"
            Terminal.writeError("\(kept) (\(String(printf: "%.2f", outcome.recording.duration)) s pressed)\n")
        }
        return RecordCommand.alarmVerdict(outcome.recording, alarmExit: options.alarmExit, what: "capture")
    }
}

/// Stops a capture when Enter is pressed, if stdin is a terminal (a press-and-release from the keyboard).
final class EnterKeyStop: Sendable {
    private let pressed = Atomic<Bool>(false)

    /// Whether Enter was pressed (possibly before there was anything to stop).
    var stopRequested: Bool { pressed.load(ordering: .sequentiallyConsistent) }

    init(_ stop: @escaping @Sendable () -> Void) {
        guard isatty(STDIN_FILENO) == 1 else { return }
        // readLine blocks for good: it gets a queue of its own (one dispatch thread), not the main thread.
        DispatchQueue(label: "reel.keyboard").async { [self] in
            _ = readLine()
            self.pressed.store(true, ordering: .sequentiallyConsistent)
            stop()
        }
    }
}
