/// The process exit codes, as documented in the README.
public enum ExitCode: Int32, Sendable {
    /// The output is finalized and usable (also when a limit or a signal stopped it).
    case success = 0
    /// Something failed at run time.
    case failure = 1
    /// Bad usage or bad input; nothing was written.
    case usage = 2
    /// Aborted by a second SIGINT while finalizing.
    case interrupted = 130
}
