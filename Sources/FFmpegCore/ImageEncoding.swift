import CFFmpeg

/// Still-image codecs: JPEG (FFmpeg's mjpeg) and PNG.
public enum ImageCodec: String, Sendable, CaseIterable {
    case jpeg, png

    var encoderName: String { self == .jpeg ? "mjpeg" : "png" }
    /// JPEG takes full-range 4:2:0 (as cameras write it); PNG takes RGB.
    public var pixelFormat: PixelFormat { self == .jpeg ? .yuvj420p : .rgb24 }
}

extension Encoder {
    /// An encoder for one still picture. `jpegQuality` 1...100 maps to the MJPEG quantizer 31...2.
    public convenience init(image codec: ImageCodec, width: Int, height: Int, jpegQuality: Int) throws {
        try self.init(codecName: codec.encoderName) { context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = codec.pixelFormat.rawValue
            context.pointee.time_base = AVRational(num: 1, den: 25)
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            if codec == .jpeg {
                context.pointee.flags |= AV_CODEC_FLAG_QSCALE
                context.pointee.global_quality = Int32(Encoder.jpegQuantizer(quality: jpegQuality)) * FF_QP2LAMBDA
                context.pointee.qmin = 1
            }
        }
    }

    /// Quality 100 → quantizer 2 (the finest MJPEG allows in practice), 1 → 31.
    public static func jpegQuantizer(quality: Int) -> Int {
        let clamped = min(max(quality, 1), 100)
        return 2 + Int((Double(100 - clamped) * 29.0 / 99.0).rounded())
    }

    /// The quality to stamp on each frame so MJPEG's fixed-quantizer mode uses it.
    public var frameQuality: Int32 { codecContext.pointee.global_quality }
}
