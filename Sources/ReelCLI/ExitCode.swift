/// The process exit codes, as documented in the README.
public enum ExitCode: Int32, Sendable {
    /// The output is finalized and usable (also when a limit or a signal stopped it).
    case success = 0
    /// Something failed at run time.
    case failure = 1
    /// Bad usage or bad input; nothing was written.
    case usage = 2
    /// With `--alarm-exit`: the recording is finalized, but it ended with an alarm still on (a dead microphone,
    /// a capped lens): the file is there, and probably useless.
    case alarm = 3
    /// Aborted by a second SIGINT while finalizing.
    case interrupted = 130
}
