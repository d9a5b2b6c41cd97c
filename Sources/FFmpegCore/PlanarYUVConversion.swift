import CPictureConversion

/// Same-size conversion of 8-bit planar 4:2:2 or 4:2:0 pictures into yuv420p, full range into limited or the
/// range kept, without swscale: an MJPEG camera's pictures (yuvj422p, full range) into what the encoders take.
/// swscale has no unscaled path for a change of chroma layout or range and runs its whole scaler for it:
/// 1.8 ms a 720p picture on this project's machine, against 0.2 ms here (the loops of CPictureConversion).
/// Chroma rows of 4:2:2 are averaged in pairs, which puts 4:2:0's chroma between its two luma rows, where
/// H.264 and HEVC place it (MPEG-2 siting); columns stay as they are.
struct PlanarYUVConversion: Equatable {
    /// 2 from 4:2:2 (two chroma rows per output row), 1 from 4:2:0.
    let chromaRowsPerRow: Int32
    let fullToLimited: Bool

    /// The conversion from `source` in `sourceRange` to yuv420p in `outputRange`; nil when this cannot do it
    /// (another layout, depth or output, or limited range into full).
    init?(source: PixelFormat, sourceRange: ColourRange, output: PixelFormat, outputRange: ColourRange) {
        guard output == .yuv420p else { return nil }
        switch source {
        case .yuv422p, .yuvj422p: chromaRowsPerRow = 2
        case .yuv420p, .yuvj420p: chromaRowsPerRow = 1
        default: return nil
        }
        let sourceFull = sourceRange == .full, outputFull = outputRange == .full
        guard sourceFull || !outputFull else { return nil }
        fullToLimited = sourceFull && !outputFull
    }

    /// Converts `source` into `destination` (same width and height, yuv420p, writable).
    func convert(_ source: Frame, into destination: Frame) {
        let width = Int32(source.width), height = Int32(source.height)
        source.withPlanes { sourceData, sourceLines in
            destination.withPlanes { outputData, outputLines in
                reel_convert_luma_plane(sourceData[0], Int(sourceLines[0]), UnsafeMutablePointer(mutating: outputData[0]),
                                        Int(outputLines[0]), width, height, fullToLimited ? 1 : 0)
                let sourceChromaHeight = chromaRowsPerRow == 2 ? height : (height + 1) / 2
                for plane in 1...2 {
                    reel_convert_chroma_plane(sourceData[plane], Int(sourceLines[plane]), sourceChromaHeight,
                                              UnsafeMutablePointer(mutating: outputData[plane]), Int(outputLines[plane]),
                                              (width + 1) / 2, (height + 1) / 2, chromaRowsPerRow, fullToLimited ? 1 : 0)
                }
            }
        }
    }
}
