import FFmpegCore

/// The video codecs a preset can ask for, and what each takes: the encoder, its speed presets and profiles.
/// Raw values are what preset files say (`"codec": "hevc"`) and FFmpeg's codec names.
public enum VideoCodec: String, Sendable, Equatable, Encodable, CaseIterable {
    /// H.264 with libx264 (the default).
    case h264
    /// HEVC (H.265) with libx265, tagged `hvc1` in the movie (parameter sets in the sample description),
    /// the form QuickTime and browsers that play HEVC accept.
    case hevc

    public static let `default` = VideoCodec.h264

    /// The FFmpeg encoder that writes it.
    public var encoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        }
    }

    /// Whether this machine's FFmpeg has the encoder, so a recording can ask before it writes anything.
    public var isAvailable: Bool { Encoder.isAvailable(encoderName) }

    /// How people name it (H.264, HEVC).
    public var displayName: String {
        switch self {
        case .h264: return "H.264"
        case .hevc: return "HEVC"
        }
    }

    /// The encoder library's short name (x264, x265).
    public var encoderLibrary: String {
        switch self {
        case .h264: return "x264"
        case .hevc: return "x265"
        }
    }

    /// Speed presets, fastest first: x264 and x265 name theirs alike.
    public var speedPresets: [String] {
        ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    }

    /// Profiles a preset may name. Reel encodes 8-bit 4:2:0 pictures, so HEVC has Main only (Main 10 and
    /// the 4:2:2/4:4:4 profiles need pictures Reel does not make).
    public var profiles: [String] {
        switch self {
        case .h264: return ["baseline", "main", "high"]
        case .hevc: return ["main"]
        }
    }

    /// Whether the profile can carry B-frames (H.264 Baseline cannot).
    func profileAllowsBFrames(_ profile: String) -> Bool {
        !(self == .h264 && profile == "baseline")
    }
}
