import FFmpegCore
import Testing

/// `Frame.blend`: an image's samples replace the picture's where it is opaque, leave them where it is clear, and
/// meet halfway at half alpha (chroma by the mean alpha of the four pixels a sample covers); it is clipped to the
/// picture.
@Suite struct FrameBlendingTests {
    static func sample(_ frame: Frame, plane: Int, x: Int, y: Int) -> Int {
        frame.withPlanes { data, lines in Int(data[plane]![y * Int(lines[plane]) + x]) }
    }

    @Test func alphaWeighsTheImageAgainstThePicture() throws {
        let picture = Frame()
        try picture.allocateVideo(width: 32, height: 16, pixelFormat: .yuv420p)
        picture.fill(x: 0, y: 0, width: 32, height: 16, luma: 100, cb: 100, cr: 100)
        // An 8x4 image of luma 200, chroma 200: its columns 0-1 clear, 2-3 half, 4-7 opaque.
        let image = Frame()
        try image.allocateVideo(width: 8, height: 4, pixelFormat: .yuva420p)
        image.withPlanes { data, lines in
            for plane in 0..<4 {
                let rows = plane == 1 || plane == 2 ? 2 : 4, columns = plane == 1 || plane == 2 ? 4 : 8
                let base = UnsafeMutablePointer(mutating: data[plane]!)
                for row in 0..<rows {
                    for column in 0..<columns {
                        base[row * Int(lines[plane]) + column] = plane < 3 ? 200 : column < 2 ? 0 : column < 4 ? 128 : 255
                    }
                }
            }
        }
        picture.blend(image, atX: 28, y: 2)   // half of it hangs off the right edge
        #expect(Self.sample(picture, plane: 0, x: 28, y: 2) == 100, "clear")
        #expect(Self.sample(picture, plane: 0, x: 30, y: 3) == 150, "half")
        #expect(Self.sample(picture, plane: 1, x: 14, y: 1) == 100 && Self.sample(picture, plane: 2, x: 15, y: 1) == 150)
        #expect(Self.sample(picture, plane: 0, x: 27, y: 2) == 100 && Self.sample(picture, plane: 0, x: 28, y: 1) == 100, "outside")
        picture.blend(image, atX: 0, y: 0)
        #expect(Self.sample(picture, plane: 0, x: 5, y: 3) == 200 && Self.sample(picture, plane: 1, x: 3, y: 1) == 200, "opaque")
    }
}
