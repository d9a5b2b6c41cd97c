/// Why a recording ended. Every reason but `failed` leaves a finalized, playable file when anything was
/// captured.
public enum StopReason: String, Sendable, Codable, CaseIterable {
    /// The user (or SIGINT/SIGTERM) stopped it.
    case stopped
    case maxDurationReached
    case maxFileSizeReached
    /// Free space on the output's filesystem would have fallen below the min-free floor.
    case diskSpaceLimitReached
    /// A write failed with ENOSPC.
    case diskFull
    /// A file or finite source came to its end.
    case inputEnded
    /// A live device failed or vanished.
    case deviceLost
    case failed
}
