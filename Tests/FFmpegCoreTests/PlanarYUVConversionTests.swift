import CFFmpeg
@testable import FFmpegCore
import Testing

/// The Scaler's own conversion of same-size 4:2:2 and 4:2:0 pictures into yuv420p (an MJPEG camera's yuvj422p
/// into the encoders' limited range), against the formulas for every input value, and against what swscale,
/// which did it before, makes of a smooth picture.
@Suite struct PlanarYUVConversionTests {
    /// A picture of `format` whose planes `fill` writes: (plane, row, column) -> value.
    static func picture(_ format: PixelFormat, width: Int, height: Int, fill: (Int, Int, Int) -> UInt8) throws -> Frame {
        let frame = Frame()
        try frame.allocateVideo(width: width, height: height, pixelFormat: format)
        let (shiftX, shiftY) = format.chromaSubsampling
        frame.withPlanes { data, lines in
            for plane in 0..<3 {
                let columns = plane == 0 ? width : (width + (1 << shiftX) - 1) >> shiftX
                let rows = plane == 0 ? height : (height + (1 << shiftY) - 1) >> shiftY
                let base = UnsafeMutablePointer(mutating: data[plane]!)
                for row in 0..<rows {
                    for column in 0..<columns { base[row * Int(lines[plane]) + column] = fill(plane, row, column) }
                }
            }
        }
        return frame
    }

    static func sample(_ frame: Frame, _ plane: Int, _ row: Int, _ column: Int) -> Int {
        frame.withPlanes { data, lines in Int(data[plane]![row * Int(lines[plane]) + column]) }
    }

    /// `source` through a Scaler to yuv420p of its own size in `range`.
    static func converted(_ source: Frame, range: ColourRange = .limited) throws -> Frame {
        var colour = ColourDescription.unspecified
        colour.matrix = .smpte170m
        colour.range = range
        source.colour = colour
        let scaler = Scaler(outputWidth: source.width, outputHeight: source.height, outputColour: colour)
        let output = Frame()
        try output.allocateVideo(width: source.width, height: source.height, pixelFormat: .yuv420p)
        try scaler.scale(source, into: output)
        return output
    }

    static func limitedLuma(_ y: Int) -> Int { Int((16 + Double(y) * 219 / 255).rounded()) }
    static func limitedChroma(_ a: Int, _ b: Int) -> Int { Int((128 + (Double(a + b) / 2 - 128) * 224 / 255).rounded()) }

    @Test func everyLumaLevelLandsOnTheNearestLimitedLevel() throws {
        let source = try Self.picture(.yuvj422p, width: 256, height: 2) { plane, _, column in plane == 0 ? UInt8(column) : 128 }
        let output = try Self.converted(source)
        for y in 0..<256 {
            #expect(Self.sample(output, 0, 0, y) == Self.limitedLuma(y), "luma \(y)")
            #expect(Self.sample(output, 0, 1, y) == Self.limitedLuma(y), "luma \(y), second row")
        }
    }

    /// All 65,536 pairs of chroma rows: output row k of column x is the mean of source rows 2k (level k) and
    /// 2k + 1 (level x), in limited range.
    @Test func everyPairOfChromaRowsLandsOnTheNearestLimitedLevelOfItsMean() throws {
        let source = try Self.picture(.yuvj422p, width: 512, height: 512) { plane, row, column in
            plane == 0 ? 0 : UInt8(row % 2 == 0 ? row / 2 : column)
        }
        let output = try Self.converted(source)
        var wrong = 0
        for plane in 1...2 {
            for k in 0..<256 {
                for x in 0..<256 where Self.sample(output, plane, k, x) != Self.limitedChroma(k, x) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test func aFourTwoZeroPictureKeepsItsChromaRows() throws {
        let source = try Self.picture(.yuvj420p, width: 512, height: 2) { plane, _, column in plane == 0 ? 255 : UInt8(column) }
        let output = try Self.converted(source)
        for c in 0..<256 { #expect(Self.sample(output, 1, 0, c) == Self.limitedChroma(c, c)) }
        #expect(Self.sample(output, 0, 1, 511) == 235)
    }

    /// An odd height: the last chroma row of 4:2:2 has no partner and is taken alone (no read past the plane).
    @Test func anOddHeightsLastChromaRowStandsAlone() throws {
        let source = try Self.picture(.yuvj422p, width: 16, height: 5) { plane, row, _ in plane == 0 ? 0 : UInt8(40 * row) }
        let output = try Self.converted(source)
        #expect(Self.sample(output, 1, 0, 0) == Self.limitedChroma(0, 40))
        #expect(Self.sample(output, 1, 1, 3) == Self.limitedChroma(80, 120))
        #expect(Self.sample(output, 2, 2, 7) == Self.limitedChroma(160, 160))
    }

    @Test func theRangeKeptCopiesLumaAndAveragesChroma() throws {
        let source = try Self.picture(.yuv422p, width: 64, height: 4) { plane, row, column in
            plane == 0 ? UInt8(column * 3) : UInt8(row == 0 ? 10 : row == 1 ? 15 : column)
        }
        let output = try Self.converted(source)
        #expect(Self.sample(output, 0, 3, 63) == 189)
        #expect(Self.sample(output, 1, 0, 5) == 13)
        #expect(Self.sample(output, 2, 1, 7) == 7)
    }

    @Test func whatItDoesNotDoIsLeftToSwscale() {
        #expect(PlanarYUVConversion(source: .yuvj422p, sourceRange: .full, output: .yuv420p, outputRange: .limited) != nil)
        #expect(PlanarYUVConversion(source: .yuv420p, sourceRange: .limited, output: .yuv420p, outputRange: .full) == nil)
        #expect(PlanarYUVConversion(source: PixelFormat(AV_PIX_FMT_YUV444P), sourceRange: .full, output: .yuv420p, outputRange: .limited) == nil)
        #expect(PlanarYUVConversion(source: .yuvj422p, sourceRange: .full, output: .yuvj420p, outputRange: .full) == nil)
    }

    /// A smooth picture (gradients, as a camera sees): swscale's bicubic conversion, which the Scaler used for
    /// it before, and this one differ by at most one level anywhere.
    @Test func aSmoothPictureComesOutAsSwscaleMadeIt() throws {
        let (width, height) = (96, 64)
        let source = try Self.picture(.yuvj422p, width: width, height: height) { plane, row, column in
            UInt8(plane == 0 ? 2 * column + row : plane == 1 ? 40 + 2 * row + column / 2 : 200 - row - column / 3)
        }
        let output = try Self.converted(source)
        let reference = Frame()
        try reference.allocateVideo(width: width, height: height, pixelFormat: .yuv420p)
        // yuv422p said to be full range: what yuvj422p means, without swscale's warning for the old format.
        let context = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_YUV422P, Int32(width), Int32(height),
                                     AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
        defer { sws_freeContext(context) }
        let table = sws_getCoefficients(SWS_CS_ITU601)
        #expect(sws_setColorspaceDetails(context, table, 1, table, 0, 0, 1 << 16, 1 << 16) >= 0)
        source.withPlanes { sourceData, sourceLines in
            reference.withPlanes { data, lines in
                var planes = (0..<4).map { UnsafeMutablePointer(mutating: data[$0]) }
                _ = sws_scale(context, sourceData, sourceLines, 0, Int32(height), &planes, lines)
            }
        }
        var largest = 0
        for plane in 0..<3 {
            let (rows, columns) = plane == 0 ? (height, width) : (height / 2, width / 2)
            for row in 0..<rows {
                for column in 0..<columns {
                    largest = max(largest, abs(Self.sample(output, plane, row, column) - Self.sample(reference, plane, row, column)))
                }
            }
        }
        #expect(largest <= 1, "largest difference from swscale: \(largest) levels")
    }
}
