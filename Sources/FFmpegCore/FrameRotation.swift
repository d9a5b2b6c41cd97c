/// How a player turns a stream's pictures to show them upright: a clockwise rotation by a multiple of 90°,
/// after mirroring them left to right when the display matrix is a reflection (its determinant negative: a
/// front camera's unmirrored movie, `tkhd` a = -1). FFmpeg 5.1's av_display_rotation_get reads only an angle,
/// so it took a mirror for a 180° turn. An integer literal is a rotation without a mirror.
public struct DisplayTurn: Sendable, Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public var clockwiseDegrees: Int
    public var mirrored: Bool

    public init(clockwiseDegrees: Int, mirrored: Bool = false) {
        self.clockwiseDegrees = ((clockwiseDegrees % 360) + 360) % 360
        self.mirrored = mirrored
    }

    public init(integerLiteral value: Int) { self.init(clockwiseDegrees: value) }

    public var isIdentity: Bool { clockwiseDegrees == 0 && !mirrored }
    public var description: String { "\(clockwiseDegrees)°\(mirrored ? " mirrored" : "")" }
}

/// Turns a planar 8-bit picture (yuv420p, yuvj420p) by a multiple of 90° clockwise, so stills of a portrait
/// movie come out upright; a mirrored turn is mirrored left to right first. Used once per still, never on
/// the recording path.
public enum FrameRotation {
    public static func turned(_ source: Frame, by turn: DisplayTurn) throws -> Frame {
        try rotated(turn.mirrored ? mirrored(source) : source, clockwiseDegrees: turn.clockwiseDegrees)
    }

    /// Mirrored left to right.
    public static func mirrored(_ source: Frame) throws -> Frame {
        let output = Frame()
        try output.allocateVideo(width: source.width, height: source.height, pixelFormat: source.pixelFormat)
        forEachPlane(of: source, into: output) { input, inStride, target, outStride, width, height in
            for y in 0..<height {
                for x in 0..<width { target[y * outStride + width - 1 - x] = input[y * inStride + x] }
            }
        }
        try output.copyProperties(from: source)
        return output
    }

    public static func rotated(_ source: Frame, clockwiseDegrees degrees: Int) throws -> Frame {
        let turns = ((degrees % 360) + 360) % 360 / 90
        guard turns != 0 else { return source }
        let swap = turns % 2 == 1
        let output = Frame()
        try output.allocateVideo(width: swap ? source.height : source.width, height: swap ? source.width : source.height,
                                 pixelFormat: source.pixelFormat)
        forEachPlane(of: source, into: output) { input, inStride, target, outStride, width, height in
            for y in 0..<height {
                let row = input + y * inStride
                for x in 0..<width {
                    let (tx, ty): (Int, Int)
                    switch turns {
                    case 1: (tx, ty) = (height - 1 - y, x)
                    case 2: (tx, ty) = (width - 1 - x, height - 1 - y)
                    default: (tx, ty) = (y, width - 1 - x)
                    }
                    target[ty * outStride + tx] = row[x]
                }
            }
        }
        try output.copyProperties(from: source)
        return output
    }

    /// The three planes of a 4:2:0 picture (chroma halved, rounded up), each with its source and target rows.
    private static func forEachPlane(of source: Frame, into output: Frame,
                                     _ body: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int, Int, Int) -> Void) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let width = (source.width + shift) >> shift, height = (source.height + shift) >> shift
            guard let input = source.planeData(plane), let target = output.planeData(plane) else { continue }
            body(input, source.planeStride(plane), target, output.planeStride(plane), width, height)
        }
    }
}
