import FFmpegCore
import Glibc

/// An error a user can act on: what went wrong (`kind`, to branch on) and a message naming the problem and
/// how to fix it. Usage problems (a bad option, a missing device, an output that exists, a limit that
/// cannot be met) are reported before anything is written; the CLI maps them to exit code 2 and the rest to
/// exit code 1. Messages name the problem, never a CLI flag: the CLI adds those (see `Kind`).
public struct ReelError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The request itself is wrong (a value out of range, a malformed spec, a missing stream).
        case invalidInput
        /// A device or input file that does not exist.
        case deviceNotFound
        /// A device another program holds (EBUSY).
        case deviceBusy
        /// The output (movie or picture) exists and overwriting was not allowed.
        case outputExists
        /// A limit that cannot be met on this tier or disk (a max size below ten keyframes, a min-free
        /// floor above the free space, a duration out of range).
        case limitImpossible(RecordingLimits.Limit)
        /// The disk filled (ENOSPC) while writing.
        case diskFull
        /// An FFmpeg call failed: the C function and its error code.
        case ffmpeg(call: String, code: Int32)
        /// Something else failed while working.
        case runtime
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func invalidInput(_ message: String) -> ReelError { ReelError(.invalidInput, message) }
    public static func runtime(_ message: String) -> ReelError { ReelError(.runtime, message) }

    /// An FFmpeg failure with context: `what` says what was being done.
    public static func ffmpeg(_ error: FFmpegError, while what: String) -> ReelError {
        ReelError(error.isNoSpace ? .diskFull : .ffmpeg(call: error.call, code: error.code), "\(what): \(error)")
    }

    public var description: String { message }

    /// A problem with the request, found before anything was written (CLI exit code 2).
    public var isInvalidInput: Bool {
        switch kind {
        case .invalidInput, .deviceNotFound, .deviceBusy, .outputExists, .limitImpossible: return true
        case .diskFull, .ffmpeg, .runtime: return false
        }
    }
}
