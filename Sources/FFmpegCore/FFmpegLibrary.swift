import CFFmpeg

/// Process-wide FFmpeg set-up: device registration and log level, done once.
public enum FFmpegLibrary {
    private static let setUp: Void = {
        av_log_set_level(AV_LOG_QUIET)
    }()

    private static let deviceRegistration: Bool = {
        ensureRegistered()
        return reel_load_and_register_devices() == 0
    }()

    /// Process-wide set-up; every entry point that opens media calls this first.
    public static func ensureRegistered() { _ = setUp }

    /// Loads libavdevice and registers its inputs (v4l2, alsa, pulse, x11grab, lavfi); false if it cannot
    /// be loaded. Called before opening any input by format name.
    @discardableResult
    public static func ensureDevicesRegistered() -> Bool { deviceRegistration }

    /// FFmpeg's own log lines on stderr: off by default (the library never prints); the CLI may raise it.
    public static func setLogLevel(_ level: LogLevel) {
        ensureRegistered()
        av_log_set_level(level.rawValue)
    }

    /// The level FFmpeg's log is at now (the nearest named level at or below it), for libraries that log
    /// on their own (x265) to follow.
    public static var logLevel: LogLevel {
        ensureRegistered()
        let level = av_log_get_level()
        return [LogLevel.debug, .verbose, .info, .warning, .error].first { level >= $0.rawValue } ?? .quiet
    }

    /// The largest single block FFmpeg may allocate (av_max_alloc); larger requests fail with ENOMEM.
    public static func limitBlockSize(to bytes: Int) {
        av_max_alloc(bytes)
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
