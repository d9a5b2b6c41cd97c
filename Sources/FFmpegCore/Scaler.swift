import CFFmpeg
import Glibc

/// Converts pictures to one output size, pixel format and colour with swscale: the one owner of its SwsContext.
/// When the source's display aspect ratio (its pixel aspect included) differs from the output's, the picture is
/// fitted inside and the rest is filled black (letterbox or pillarbox) rather than stretched. Colour goes from
/// each source picture's own matrix and range (its tags, or what players assume for it) into the output's,
/// and output pictures are stamped with the output's colour and square pixels.
public final class Scaler {
    private var context: OpaquePointer?
    private var source: SourceShape?
    /// Set when the source's YUV matrix is not the output's and the size changes: swscale scales keeping the
    /// source's matrix, and the scaled picture is re-coded after (see `prepare`).
    private var recoding: YUVMatrixConversion?
    /// Set when the picture keeps its size and only its chroma layout or range changes in a way
    /// PlanarYUVConversion does (an MJPEG camera's yuvj422p): then no swscale context is made.
    private var direct: PlanarYUVConversion?
    public let outputWidth: Int
    public let outputHeight: Int
    public let outputFormat: PixelFormat
    /// What output pictures mean (and are tagged with); anything left unspecified is resolved as players
    /// assume for the output's format and size (BT.709 for HD YUV, BT.601 for SD, full-range BT.601 for JPEG).
    public let outputColour: ColourDescription
    /// Where the picture lands inside the output (even coordinates, as 4:2:0 chroma needs).
    public private(set) var pictureRect: (x: Int, y: Int, width: Int, height: Int) = (0, 0, 0, 0)

    /// What a conversion context is made for: a change of any of it (rare) makes a new one.
    private struct SourceShape: Equatable {
        var width: Int
        var height: Int
        var format: PixelFormat
        var sampleAspect: Rational
        var matrix: ColourMatrix
        var range: ColourRange
    }

    public init(outputWidth: Int, outputHeight: Int, outputFormat: PixelFormat = .yuv420p,
                outputColour: ColourDescription = .unspecified) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.outputFormat = outputFormat
        self.outputColour = outputColour.resolved(for: outputFormat, width: outputWidth, height: outputHeight)
    }

    deinit { sws_freeContext(context) }

    /// True when `frame` already is what the output would be (size, format, square pixels, matrix and range),
    /// so it can be passed on without conversion.
    public func isPassThrough(for frame: Frame) -> Bool {
        guard frame.width == outputWidth && frame.height == outputHeight && frame.pixelFormat == outputFormat else {
            return false
        }
        let colour = frame.resolvedColour
        let rect = Scaler.fittedRect(sourceWidth: frame.width, sourceHeight: frame.height, sampleAspect: frame.sampleAspectRatio,
                                     outputWidth: outputWidth, outputHeight: outputHeight)
        return rect == (0, 0, outputWidth, outputHeight) && colour.matrix.convertsLike(outputColour.matrix)
            && colour.range == outputColour.range
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
        if let direct {
            direct.convert(source, into: destination)
        } else {
            let height = source.withPlanes { sourceData, sourceLines in
                sws_scale(context, sourceData, sourceLines, 0, Int32(source.height), &planes, &strides)
            }
            try FFmpegError.check(height, "sws_scale")
        }
        // Letterbox bars are black, which no matrix changes (no chroma): the whole picture can be re-coded.
        if let recoding { destination.convertMatrix(recoding) }
        destination.pts = source.pts
        destination.colour = outputColour
        destination.sampleAspectRatio = Rational(1, 1)
    }

    private func prepare(for frame: Frame) throws {
        let colour = frame.resolvedColour
        let shape = SourceShape(width: frame.width, height: frame.height, format: frame.pixelFormat,
                                sampleAspect: frame.sampleAspectRatio, matrix: colour.matrix, range: colour.range)
        if (context != nil || direct != nil) && shape == source { return }
        sws_freeContext(context)
        context = nil
        direct = nil
        source = shape
        pictureRect = Scaler.fittedRect(sourceWidth: frame.width, sourceHeight: frame.height, sampleAspect: shape.sampleAspect,
                                        outputWidth: outputWidth, outputHeight: outputHeight)
        // YUV to YUV with another matrix: at the same size and chroma layout (stills) point sampling keeps the
        // chroma samples where they are, and the new chroma depends on the old chroma alone, so each sample is
        // converted exactly instead of blurring colour edges (a JPEG of a BT.709 test pattern: 44 dB against 38.6 dB
        // with bicubic); swscale goes through RGB for it (a cascade of two contexts), with accurate rounding to
        // land within half a level. Scaled to 4:2:0, the picture is scaled keeping the source's matrix and
        // re-coded after at the output's size (YUVMatrixConversion, within a level of the exact conversion): swscale's
        // cascade made a 1080p + 352x288 recording's conversion stage ~6 % dearer (0.66 against 0.62 s per 10 s).
        let changesMatrix = colour.matrix.isYUV && outputColour.matrix.isYUV && !colour.matrix.convertsLike(outputColour.matrix)
        let sameSize = pictureRect.width == frame.width && pictureRect.height == frame.height
            && frame.pixelFormat.chromaSubsampling == outputFormat.chromaSubsampling
        recoding = changesMatrix && !sameSize && outputFormat == .yuv420p
            ? YUVMatrixConversion(from: colour.matrix, to: outputColour.matrix, range: outputColour.range) : nil
        let fills = pictureRect == (0, 0, outputWidth, outputHeight) && frame.width == outputWidth && frame.height == outputHeight
        if fills && (!changesMatrix || recoding != nil) {
            direct = PlanarYUVConversion(source: frame.pixelFormat, sourceRange: colour.range, output: outputFormat,
                                         outputRange: outputColour.range)
            if direct != nil { return }
        }
        let flags = !changesMatrix || recoding != nil ? SWS_BICUBIC : sameSize ? SWS_POINT : SWS_BICUBIC | SWS_ACCURATE_RND
        context = sws_getContext(Int32(frame.width), Int32(frame.height), frame.pixelFormat.rawValue,
                                 Int32(pictureRect.width), Int32(pictureRect.height), outputFormat.rawValue,
                                 flags, nil, nil, nil)
        let problem = "cannot convert \(frame.width)x\(frame.height) \(frame.pixelFormat) (\(colour.matrix), \(colour.range)) to \(outputWidth)x\(outputHeight) \(outputFormat) (\(outputColour.matrix), \(outputColour.range))"
        guard context != nil else { throw FFmpegError(call: "sws_getContext", message: problem) }
        // swscale's own default is BT.601 limited range for every YUV picture; say what both sides really are.
        // An RGB side has no matrix: it takes the other side's (swscale reads only the YUV side's table).
        let sourceMatrix = colour.matrix.isYUV ? colour.matrix : outputColour.matrix
        let outputMatrix = recoding != nil ? sourceMatrix : outputColour.matrix.isYUV ? outputColour.matrix : sourceMatrix
        let result = sws_setColorspaceDetails(context, sws_getCoefficients(sourceMatrix.swscaleCoefficients),
                                              colour.range == .full ? 1 : 0,
                                              sws_getCoefficients(outputMatrix.swscaleCoefficients),
                                              outputColour.range == .full ? 1 : 0, 0, 1 << 16, 1 << 16)
        guard result >= 0 else { throw FFmpegError(call: "sws_setColorspaceDetails", message: problem) }
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
        // Only 4:2:0 YUV output is letterboxed: luma 16 (0 in full range), chroma 128 is black.
        let frameData = frame.pointer.pointee
        let black = outputColour.range == .full ? 0 : 16
        let planes = [(frameData.data.0, frameData.linesize.0, black, 0), (frameData.data.1, frameData.linesize.1, 128, 1),
                      (frameData.data.2, frameData.linesize.2, 128, 1)]
        for (data, stride, value, shift) in planes {
            guard let data else { continue }
            memset(data, Int32(value), Int(stride) * (outputHeight >> shift))
        }
    }
}
