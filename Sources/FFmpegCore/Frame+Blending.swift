import CFFmpeg

extension Frame {
    /// Blends `image` (yuva420p, its alpha in the fourth plane) into this yuv420p picture with its top left
    /// corner at (x, y), both even, clipped to the picture: each sample moves towards the image's by its alpha
    /// (a chroma sample by the mean alpha of the four pixels it covers). The caller owns this picture and has
    /// made it writable.
    public func blend(_ image: Frame, atX x: Int, y: Int) {
        precondition(pixelFormat == .yuv420p && image.pixelFormat == .yuva420p, "blend draws yuva420p images into yuv420p pictures")
        let left = max(0, x), top = max(0, y)
        let right = min(width, x + image.width) & ~1, bottom = min(height, y + image.height) & ~1
        guard right > left, bottom > top,
              let alpha = image.planeData(3) else { return }
        let alphaStride = image.planeStride(3)
        for (plane, shift) in [(0, 0), (1, 1), (2, 1)] {
            guard let target = planeData(plane), let source = image.planeData(plane) else { continue }
            let targetStride = planeStride(plane), sourceStride = image.planeStride(plane)
            for row in (top >> shift)..<(bottom >> shift) {
                let sourceRow = source + (row - (y >> shift)) * sourceStride
                let targetRow = target + row * targetStride
                let alphaRow = alpha + ((row << shift) - y) * alphaStride
                for column in (left >> shift)..<(right >> shift) {
                    let imageColumn = column - (x >> shift)
                    let weight: Int32
                    if shift == 0 {
                        weight = Int32(alphaRow[imageColumn])
                    } else {
                        let a = 2 * imageColumn
                        weight = (Int32(alphaRow[a]) + Int32(alphaRow[a + 1]) + Int32(alphaRow[alphaStride + a])
                                  + Int32(alphaRow[alphaStride + a + 1]) + 2) >> 2
                    }
                    guard weight > 0 else { continue }
                    let old = Int32(targetRow[column]), new = Int32(sourceRow[imageColumn])
                    targetRow[column] = UInt8(truncatingIfNeeded: old + ((new - old) * weight + 127) / 255)
                }
            }
        }
    }
}
