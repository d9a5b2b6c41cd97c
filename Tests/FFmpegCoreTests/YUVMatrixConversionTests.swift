import FFmpegCore
import Testing

/// The composition's own re-coding of a window from one YUV matrix to another, against the exact conversion
/// (decoded to R'G'B' and encoded again in floating point) of colours inside the gamut, drawn as flat pictures:
/// within one level in every component (swscale, which goes through 8-bit RGB, is itself up to 3 off).
@Suite struct YUVMatrixConversionTests {
    /// R'G'B' colours inside the gamut (0...1): greys, tints, skin tones, saturated but not clipped primaries.
    static let colours: [(Double, Double, Double)] = [
        (0, 0, 0), (1, 1, 1), (0.5, 0.5, 0.5), (0.8, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 0.8), (0.9, 0.9, 0.1),
        (0.1, 0.9, 0.9), (0.85, 0.6, 0.5), (0.55, 0.38, 0.3), (0.3, 0.5, 0.7),
    ]

    static func weights(_ matrix: ColourMatrix) -> (Double, Double) { matrix.lumaWeights! }

    /// Exact code values of an R'G'B' colour under `matrix` in `range`.
    static func encode(_ rgb: (Double, Double, Double), _ matrix: ColourMatrix, _ range: ColourRange) -> [Double] {
        let (kr, kb) = weights(matrix)
        let y = kr * rgb.0 + (1 - kr - kb) * rgb.1 + kb * rgb.2
        let cb = (rgb.2 - y) / (2 * (1 - kb)), cr = (rgb.0 - y) / (2 * (1 - kr))
        let (lumaScale, lumaOffset, chromaScale) = range == .full ? (255.0, 0.0, 255.0) : (219.0, 16.0, 224.0)
        return [lumaOffset + lumaScale * y, 128 + chromaScale * cb, 128 + chromaScale * cr]
    }

    /// The R'G'B' colour of code values under `matrix` in `range`.
    static func decode(_ codes: [Double], _ matrix: ColourMatrix, _ range: ColourRange) -> (Double, Double, Double) {
        let (kr, kb) = weights(matrix)
        let (lumaScale, lumaOffset, chromaScale) = range == .full ? (255.0, 0.0, 255.0) : (219.0, 16.0, 224.0)
        let y = (codes[0] - lumaOffset) / lumaScale, cb = (codes[1] - 128) / chromaScale, cr = (codes[2] - 128) / chromaScale
        let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
        return (r, (y - kr * r - kb * b) / (1 - kr - kb), b)
    }

    /// A flat picture of `rgb` coded with `from` in `fromRange` (its code values rounded), and what those codes
    /// mean coded exactly with `to` in `toRange`.
    static func flat(_ rgb: (Double, Double, Double), size: Int, _ from: ColourMatrix, _ fromRange: ColourRange,
                     _ to: ColourMatrix, _ toRange: ColourRange) throws -> (picture: Frame, codes: [UInt8], expected: [Double]) {
        let codes = encode(rgb, from, fromRange).map { UInt8(clamping: Int($0.rounded())) }
        let expected = encode(decode(codes.map(Double.init), from, fromRange), to, toRange)
        let picture = Frame()
        try picture.allocateVideo(width: size, height: size, pixelFormat: .yuv420p)
        picture.fill(x: 0, y: 0, width: size, height: size, luma: codes[0], cb: codes[1], cr: codes[2])
        return (picture, codes, expected)
    }

    static func centre(_ frame: Frame) -> [Int] {
        frame.withPlanes { data, lines in
            [Int(data[0]![8 * Int(lines[0]) + 8]), Int(data[1]![4 * Int(lines[1]) + 4]), Int(data[2]![4 * Int(lines[2]) + 4])]
        }
    }

    @Test(arguments: [(ColourMatrix.smpte170m, ColourMatrix.bt709, ColourRange.limited), (.bt709, .smpte170m, .limited),
                      (.smpte170m, .bt709, .full), (.bt2020nc, .bt709, .limited)])
    func matchesTheExactConversionWithinOneLevel(_ case: (ColourMatrix, ColourMatrix, ColourRange)) throws {
        let (from, to, range) = `case`
        let conversion = try #require(YUVMatrixConversion(from: from, to: to, range: range))
        for rgb in Self.colours {
            let (frame, codes, expected) = try Self.flat(rgb, size: 16, from, range, to, range)
            frame.convertMatrix(conversion)
            let got = Self.centre(frame)
            #expect(zip(expected, got).allSatisfy { abs($0 - Double($1)) <= 1 }, "\(rgb) as \(codes): exact \(expected), own \(got)")
        }
    }

    /// The Scaler, changing size and matrix (an HD picture into an SD tier, an SD camera into an HD movie), scales
    /// keeping the source's matrix and re-codes after: flat colours land within one level of the exact conversion
    /// (1.5 with a change of range, rounded twice), and the picture is tagged with the output's colour. swscale's
    /// own conversion through RGB, which it used before, was up to 1.2 levels off in the same range.
    @Test(arguments: [(ColourMatrix.bt709, ColourRange.limited, ColourMatrix.smpte170m, ColourRange.limited),
                      (.smpte170m, .limited, .bt709, .limited), (.smpte170m, .full, .bt709, .limited)])
    func theScalerRecodesAtTheOutputsSize(_ case: (ColourMatrix, ColourRange, ColourMatrix, ColourRange)) throws {
        let (from, fromRange, to, toRange) = `case`
        var outputColour = ColourDescription.unspecified
        outputColour.matrix = to
        outputColour.range = toRange
        let scaler = Scaler(outputWidth: 32, outputHeight: 32, outputColour: outputColour)
        for rgb in Self.colours {
            let (source, codes, expected) = try Self.flat(rgb, size: 64, from, fromRange, to, toRange)
            var colour = ColourDescription.unspecified
            colour.matrix = from
            colour.range = fromRange
            source.colour = colour
            let output = Frame()
            try output.allocateVideo(width: 32, height: 32, pixelFormat: .yuv420p)
            try scaler.scale(source, into: output)
            let got = Self.centre(output)
            let tolerance = fromRange == toRange ? 1.0 : 1.5
            #expect(zip(expected, got).allSatisfy { abs($0 - Double($1)) <= tolerance }, "\(rgb) as \(codes): exact \(expected), scaled \(got)")
            #expect(output.colour.matrix == to && output.colour.range == toRange)
        }
    }

    @Test func matricesThatConvertAlikeNeedNoConversion() {
        #expect(YUVMatrixConversion(from: .bt470bg, to: .smpte170m, range: .limited) == nil)
        #expect(YUVMatrixConversion(from: .rgb, to: .bt709, range: .limited) == nil)
        // Grey stays grey: no chroma, no luma change.
        let conversion = YUVMatrixConversion(from: .smpte170m, to: .bt709, range: .limited)!
        #expect(conversion.convert(cb: 128, cr: 128) == (0, 128, 128))
    }
}
