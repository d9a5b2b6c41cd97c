import CFFmpeg
import Glibc

/// Converts pictures to one output size and pixel format with swscale: the one owner of its SwsContext.
/// When the source aspect ratio differs from the output's, the picture is fitted inside and the rest is
/// filled black (letterbox or pillarbox) rather than stretched.
public final class Scaler {
    private var context: OpaquePointer?
    private var sourceShape: (width: Int, height: Int, format: PixelFormat) = (0, 0, .none)
    public let outputWidth: Int
    public let outputHeight: Int
    public let outputFormat: PixelFormat
    /// Where the picture lands inside the output (even coordinates, as 4:2:0 chroma needs).
    public private(set) var pictureRect: (x: Int, y: Int, width: Int, height: Int) = (0, 0, 0, 0)

    public init(outputWidth: Int, outputHeight: Int, outputFormat: PixelFormat = .yuv420p) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.outputFormat = outputFormat
    }

    deinit { sws_freeContext(context) }

    /// True when `frame` already has the output shape, so it can be passed on without conversion.
    public func isPassThrough(for frame: Frame) -> Bool {
        frame.width == outputWidth && frame.height == outputHeight && frame.pixelFormat == outputFormat
    }

    /// Converts `source` into `destination`, which must already hold buffers of the output shape.
    public func scale(_ source: Frame, into destination: Frame) throws {
        try prepare(for: source)
        try destination.makeWritable()
        let fitsExactly = pictureRect.width == outputWidth && pictureRect.height == outputHeight
        if !fitsExactly { fillBlack(destination) }
        var planes: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var strides: [Int32] = [0, 0, 0, 0]
        withUnsafeMutablePointer(to: &destination.pointer.pointee.data) { dataTuple in
            dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafeMutablePointer(to: &destination.pointer.pointee.linesize) { lineTuple in
                    lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { lines in
                        for plane in 0..<4 {
                            guard let base = data[plane] else { continue }
                            let shift = plane == 0 || plane == 3 ? 0 : 1
                            let offset = Int(lines[plane]) * (pictureRect.y >> shift) + (pictureRect.x >> shift)
                            planes[plane] = base + offset
                            strides[plane] = lines[plane]
                        }
                    }
                }
            }
        }
        let height = withUnsafePointer(to: &source.pointer.pointee.data) { dataTuple in
            dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourceData in
                withUnsafePointer(to: &source.pointer.pointee.linesize) { lineTuple in
                    lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { sourceLines in
                        sws_scale(context, sourceData, sourceLines, 0, Int32(source.height), &planes, &strides)
                    }
                }
            }
        }
        try FFmpegError.check(height, "sws_scale")
        destination.pts = source.pts
    }

    private func prepare(for source: Frame) throws {
        let shape = (source.width, source.height, source.pixelFormat)
        if context != nil && shape == sourceShape { return }
        sourceShape = shape
        pictureRect = Scaler.fittedRect(sourceWidth: source.width, sourceHeight: source.height,
                                        sampleAspect: Rational(source.pointer.pointee.sample_aspect_ratio),
                                        outputWidth: outputWidth, outputHeight: outputHeight)
        context = sws_getCachedContext(context, Int32(source.width), Int32(source.height), source.pixelFormat.rawValue,
                                       Int32(pictureRect.width), Int32(pictureRect.height), outputFormat.rawValue,
                                       SWS_BICUBIC, nil, nil, nil)
        if context == nil {
            throw FFmpegError(call: "sws_getCachedContext",
                              message: "cannot convert \(source.width)x\(source.height) \(source.pixelFormat) to \(outputWidth)x\(outputHeight) \(outputFormat)")
        }
    }

    /// The largest rectangle with the source's display aspect that fits the output, centred, even-aligned.
    public static func fittedRect(sourceWidth: Int, sourceHeight: Int, sampleAspect: Rational,
                                  outputWidth: Int, outputHeight: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let pixelAspect = sampleAspect.isValid ? sampleAspect.doubleValue : 1
        let sourceAspect = Double(sourceWidth) * pixelAspect / Double(max(sourceHeight, 1))
        let outputAspect = Double(outputWidth) / Double(outputHeight)
        // Within 1 % the stretch is invisible; filling the frame beats a one-pixel bar.
        if abs(sourceAspect / outputAspect - 1) < 0.01 { return (0, 0, outputWidth, outputHeight) }
        var width = outputWidth, height = outputHeight
        if sourceAspect > outputAspect {
            height = Int((Double(outputWidth) / sourceAspect).rounded()) & ~1
        } else {
            width = Int((Double(outputHeight) * sourceAspect).rounded()) & ~1
        }
        width = max(width, 2)
        height = max(height, 2)
        return (((outputWidth - width) / 2) & ~1, ((outputHeight - height) / 2) & ~1, width, height)
    }

    private func fillBlack(_ frame: Frame) {
        // Only yuv420p output is letterboxed: luma 16, chroma 128 is video black.
        let frameData = frame.pointer.pointee
        let planes = [(frameData.data.0, frameData.linesize.0, 16, 0), (frameData.data.1, frameData.linesize.1, 128, 1),
                      (frameData.data.2, frameData.linesize.2, 128, 1)]
        for (data, stride, value, shift) in planes {
            guard let data else { continue }
            memset(data, Int32(value), Int(stride) * (outputHeight >> shift))
        }
    }
}
