import FoundationEssentials
import Glibc
import Reel

/// The `reel` command: dispatches to one subcommand and returns the process exit code.
public enum ReelCommandLine {
    static let help = """
        usage: reel COMMAND [options]

        Records and transcodes H.264 or HEVC / AAC QuickTime movies on Linux with FFmpeg's libraries.

        commands:
          record [OUTPUT.mov]   record from a camera, microphone, screen or test source
          capture BASENAME      tap = photo (BASENAME.jpg), hold = movie (BASENAME.mov)
          snap OUTPUT.jpg       a still from a live device
          grab INPUT OUTPUT.jpg the picture at a time of any movie
          transcode IN OUT.mov  convert any media file to H.264 or HEVC / AAC at a preset
          trim IN OUT.mov       a span of a movie, frame-exact, encoding again only the groups at its ends
          join OUT.mov IN...    movies encoded alike (a recording's segments) one after another, copied
          batch JOBS.json       run record, transcode, grab and trim jobs, in parallel, with a report
          ctl SOCKET COMMAND    drive a recording started with --control SOCKET (status, switch, photo, stop ...)
          serve                 the camera in a browser: preview, tap = photo, hold = movie; and its HTTP API
          devices               list cameras, microphones and built-in sources
          presets               list the quality presets
          probe FILE            show a movie's streams

        Run 'reel COMMAND --help' for a command's options.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        // Process-wide FFmpeg settings are the application's to make; the command line makes them here.
        FFmpegMemoryGuard.limitBlockSize()
        FFmpegLogging.silence()
        if let level = ProcessInfo.processInfo.environment["REEL_FFMPEG_LOG"] {
            FFmpegLogging.enable(levelName: level)
        }
        let rest = Array(arguments.dropFirst())
        guard let command = rest.first else {
            Terminal.writeError(help + "\n")
            return ExitCode.usage.rawValue
        }
        let commandArguments = Array(rest.dropFirst())
        let commands: [String: (help: String, run: ([String]) -> ExitCode)] = [
            "record": (RecordCommand.help, RecordCommand.run),
            "capture": (CaptureCommand.help, CaptureCommand.run),
            "snap": (SnapCommand.help, SnapCommand.run),
            "grab": (GrabCommand.help, GrabCommand.run),
            "transcode": (TranscodeCommand.help, TranscodeCommand.run),
            "trim": (TrimCommand.help, TrimCommand.run),
            "join": (JoinCommand.help, JoinCommand.run),
            "batch": (BatchCommand.help, BatchCommand.run),
            "ctl": (CtlCommand.help, CtlCommand.run),
            "serve": (ServeCommand.help, ServeCommand.run),
            "devices": (DevicesCommand.help, DevicesCommand.run),
            "presets": (PresetsCommand.help, PresetsCommand.run),
            "probe": (ProbeCommand.help, ProbeCommand.run),
        ]
        if command == "--help" || command == "-h" || command == "help" {
            Terminal.writeOutput(help + "\n")
            return ExitCode.success.rawValue
        }
        if command == "--version" {
            Terminal.writeOutput("reel \(ReelVersion.current)\n")
            return ExitCode.success.rawValue
        }
        guard let entry = commands[command] else {
            Terminal.printError("unknown command '\(command)': use one of \(commands.keys.sorted().joined(separator: ", ")) (reel --help)")
            return ExitCode.usage.rawValue
        }
        if commandArguments.contains("--help") || commandArguments.contains("-h") {
            Terminal.writeOutput(entry.help + "\n")
            return ExitCode.success.rawValue
        }
        // Commands that finalize a file on SIGINT/SIGTERM catch them from the start: a signal while they
        // parse and open their inputs must not kill them half-way (they stop as soon as they are running).
        if ["record", "capture", "batch"].contains(command) { SignalHandling.install() }
        return entry.run(commandArguments).rawValue
    }
}
