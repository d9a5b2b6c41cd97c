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
    public static let yuvj422p = PixelFormat(AV_PIX_FMT_YUVJ422P)
    public static let yuv422p = PixelFormat(AV_PIX_FMT_YUV422P)
    public static let yuva420p = PixelFormat(AV_PIX_FMT_YUVA420P)
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    public static let none = PixelFormat(AV_PIX_FMT_NONE)
    public var description: String {
        guard let name = av_get_pix_fmt_name(rawValue) else { return "none" }
        return String(cString: name)
    }

    /// Stored as RGB (packed or planar), not YUV or grey.
    public var isRGB: Bool {
        guard let descriptor = av_pix_fmt_desc_get(rawValue) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
    }

    /// JPEG's full-range YUV layouts (yuvj420p...), which carry their range in the format itself.
    public var isFullRangeYUV: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .contains(rawValue)
    }

    /// How much chroma is subsampled, as log2 of the horizontal and vertical factors (4:2:0 is (1, 1)).
    public var chromaSubsampling: (horizontal: Int, vertical: Int) {
        guard let descriptor = av_pix_fmt_desc_get(rawValue) else { return (0, 0) }
        return (Int(descriptor.pointee.log2_chroma_w), Int(descriptor.pointee.log2_chroma_h))
    }

    /// Bits per sample of the first component (8 for yuv420p, 10 for yuv420p10le); 0 when unknown.
    public var bitsPerComponent: Int {
        guard let descriptor = av_pix_fmt_desc_get(rawValue), descriptor.pointee.nb_components > 0 else { return 0 }
        return Int(descriptor.pointee.comp.0.depth)
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
