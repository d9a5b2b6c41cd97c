import FoundationEssentials
import Glibc
/// A quality tier: what size and rate to capture at and how to encode it. Loaded from presets/*.json.
public struct Preset: Sendable, Equatable, Encodable {
    public var name: String
    public var description: String
    public var video: Video
    public var audio: Audio

    public struct Video: Sendable, Equatable, Encodable {
        public var width: Int
        public var height: Int
        /// `deviceBest`: the largest mode the camera offers up to width x height (AVCaptureSessionPresetHigh).
        public var sizePolicy: SizePolicy
        public var fps: Double
        /// H.264 (libx264, the default) or HEVC (libx265).
        public var codec: VideoCodec
        /// The encoder's speed preset (ultrafast ... placebo; x264 and x265 name them alike).
        public var speedPreset: String
        public var rateControl: RateControl
        /// VBV cap, in bits per second and bits, when set.
        public var maxRate: Int?
        public var bufferSize: Int?
        /// The codec's profile (H.264: baseline, main, high; HEVC: main).
        public var profile: String
        /// Frames between keyframes (GOP length).
        public var keyframeInterval: Int
        /// B-frames; nil leaves the encoder's preset default.
        public var bFrames: Int?
        /// `low`: the encoder holds no picture back (x264/x265 `tune=zerolatency`: no lookahead, no B-frames,
        /// sliced threads instead of frame threads), for live streams watched as they happen; files grow a
        /// little at the same quality.
        public var latency: Latency = .normal
        /// Picture filters the capture goes through when this is the session's preset (deinterlace for DV ...).
        public var filters: [PictureFilterKind] = []
        /// Drawn on every picture when this is the session's preset, before the recording's own `--overlay`s
        /// (a lab's clock and logo in its house preset).
        public var overlays: [Overlay] = []

        public var size: String { "\(width)x\(height)" }

        /// The speed preset's name before presets took a codec.
        @available(*, deprecated, renamed: "speedPreset")
        public var x264Preset: String {
            get { speedPreset }
            set { speedPreset = newValue }
        }
    }

    public enum Latency: String, Sendable, Equatable, Encodable, CaseIterable {
        case normal, low
    }

    public enum SizePolicy: String, Sendable, Equatable, Encodable, CaseIterable {
        case exact, deviceBest
    }

    public enum RateControl: Sendable, Equatable, Encodable {
        case constantQuality(crf: Double)
        case averageBitRate(Int)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .constantQuality(let crf): try container.encode("crf \(crf)")
            case .averageBitRate(let rate): try container.encode("bitrate \(rate)")
            }
        }
    }

    public struct Audio: Sendable, Equatable, Encodable {
        public var sampleRate: Int
        public var channels: Int
        public var bitRate: Int
    }
}

extension Preset {
    /// Parses "1280x720": both even (4:2:0 chroma) and within what x264 accepts.
    /// The sampling rates AAC can signal (ISO 14496-3's table) from 8 kHz up, which FFmpeg's encoder accepts.
    public static let aacSampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// Frames per second a preset (or --fps) may ask for.
    public static let frameRateRange: ClosedRange<Double> = 1...240

    public static func parseSize(_ text: String) -> (width: Int, height: Int)? { PresetParser.parseSize(text) }

    /// Parses and validates preset JSON; `source` names it in errors.
    public init(json: Data, source: String) throws { self = try PresetParser.parse(json, source: source) }
}
