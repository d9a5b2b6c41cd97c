/// Turns a planar 8-bit picture (yuv420p, yuvj420p) by a multiple of 90° clockwise, so stills of a portrait
/// movie come out upright. Used once per still, never on the recording path.
public enum FrameRotation {
    public static func rotated(_ source: Frame, clockwiseDegrees degrees: Int) throws -> Frame {
        let turns = ((degrees % 360) + 360) % 360 / 90
        guard turns != 0 else { return source }
        let swap = turns % 2 == 1
        let output = Frame()
        try output.allocateVideo(width: swap ? source.height : source.width, height: swap ? source.width : source.height,
                                 pixelFormat: source.pixelFormat)
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let width = (source.width + shift) >> shift, height = (source.height + shift) >> shift
            guard let input = source.planeData(plane), let target = output.planeData(plane) else { continue }
            let inStride = source.planeStride(plane), outStride = output.planeStride(plane)
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
}
