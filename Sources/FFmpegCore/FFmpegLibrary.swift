import CFFmpeg

/// Process-wide FFmpeg set-up: device registration, done once. The log level and the allocation cap are
/// process-wide too, and changed only when a caller asks (`setLogLevel`, `limitBlockSize`): a library must
/// not silence or limit the FFmpeg an application shares with it.
public enum FFmpegLibrary {
    private static let deviceRegistration: Bool = reel_load_and_register_devices() == 0

    /// Loads libavdevice and registers its inputs (v4l2, alsa, pulse, x11grab, lavfi); false if it cannot
    /// be loaded. Called before opening any input by format name.
    @discardableResult
    public static func ensureDevicesRegistered() -> Bool { deviceRegistration }

    /// FFmpeg's own log lines on stderr (FFmpeg's default is `info`); the `reel` command line turns them off.
    public static func setLogLevel(_ level: LogLevel) {
        av_log_set_level(level.rawValue)
    }

    /// The level FFmpeg's log is at now (the nearest named level at or below it), for libraries that log
    /// on their own (x265) to follow.
    public static var logLevel: LogLevel {
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
