import CFFmpeg

/// Process-wide FFmpeg set-up: device registration and log level, done once.
public enum FFmpegLibrary {
    private static let registration: Void = {
        avdevice_register_all()
        av_log_set_level(AV_LOG_QUIET)
    }()

    /// Registers libavdevice's inputs; every entry point that opens media calls this first.
    public static func ensureRegistered() { _ = registration }

    /// FFmpeg's own log lines on stderr: off by default (the library never prints); the CLI may raise it.
    public static func setLogLevel(_ level: LogLevel) {
        ensureRegistered()
        av_log_set_level(level.rawValue)
    }

    public enum LogLevel: Int32, Sendable {
        case quiet = -8, error = 16, warning = 24, info = 32, verbose = 40, debug = 48
    }

    public static var versionSummary: String {
        let format = avformat_version(), codec = avcodec_version()
        return "libavformat \(format >> 16).\((format >> 8) & 0xff), libavcodec \(codec >> 16).\((codec >> 8) & 0xff)"
    }
}

extension FFmpegLibrary.LogLevel {
    /// "error", "warning", "info", "verbose", "debug" or "quiet", as FFmpeg's -loglevel names them.
    public init?(name: String) {
        switch name {
        case "quiet": self = .quiet
        case "error": self = .error
        case "warning": self = .warning
        case "info": self = .info
        case "verbose": self = .verbose
        case "debug": self = .debug
        default: return nil
        }
    }
}
