import CFFmpeg

/// A pixel layout, named as FFmpeg names it ("yuv420p").
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: AVPixelFormat
    public init(_ rawValue: AVPixelFormat) { self.rawValue = rawValue }
    public init?(name: String) {
        let value = av_get_pix_fmt(name)
        if value == AV_PIX_FMT_NONE { return nil }
        self.rawValue = value
    }
    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    public static let yuvj420p = PixelFormat(AV_PIX_FMT_YUVJ420P)
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    public static let none = PixelFormat(AV_PIX_FMT_NONE)
    public var description: String {
        guard let name = av_get_pix_fmt_name(rawValue) else { return "none" }
        return String(cString: name)
    }
}

/// A sample layout, named as FFmpeg names it ("fltp").
public struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: AVSampleFormat
    public init(_ rawValue: AVSampleFormat) { self.rawValue = rawValue }
    public static let floatPlanar = SampleFormat(AV_SAMPLE_FMT_FLTP)
    public static let signed16 = SampleFormat(AV_SAMPLE_FMT_S16)
    public var description: String {
        guard let name = av_get_sample_fmt_name(rawValue) else { return "none" }
        return String(cString: name)
    }
}

/// What kind of data a stream carries.
public enum MediaType: Sendable, Equatable {
    case video, audio, other

    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        default: self = .other
        }
    }
}
