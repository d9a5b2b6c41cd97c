import CFFmpeg
import Glibc

/// Drawing into 8-bit 4:2:0 pictures (a composed picture's canvas): filled rectangles and pictures copied into
/// place. Coordinates and sizes are even (whole chroma samples); the caller owns the frame and has made it
/// writable.
extension Frame {
    /// No other reference shares the buffers (a canvas may be drawn into again).
    public var isWritable: Bool { av_frame_is_writable(pointer) != 0 }

    /// Fills a rectangle with one Y'CbCr colour.
    public func fill(x: Int, y: Int, width: Int, height: Int, luma: UInt8, cb: UInt8, cr: UInt8) {
        precondition(pixelFormat == .yuv420p, "fill draws into yuv420p pictures")
        let (x, y, width, height) = clipped(x: x, y: y, width: width, height: height)
        guard width > 0, height > 0 else { return }
        for (plane, value, shift) in [(0, luma, 0), (1, cb, 1), (2, cr, 1)] {
            guard let base = planeData(plane) else { continue }
            let stride = planeStride(plane)
            for row in (y >> shift)..<((y + height) >> shift) {
                memset(base + row * stride + (x >> shift), Int32(value), width >> shift)
            }
        }
    }

    /// Copies `picture` (yuv420p, its whole size) with its top left corner at (x, y), clipped to this picture.
    public func draw(_ picture: Frame, atX x: Int, y: Int) {
        precondition(pixelFormat == .yuv420p && picture.pixelFormat == .yuv420p, "draw copies yuv420p pictures")
        let (left, top, width, height) = clipped(x: x, y: y, width: picture.width, height: picture.height)
        guard width > 0, height > 0 else { return }
        let skipX = left - x, skipY = top - y
        for (plane, shift) in [(0, 0), (1, 1), (2, 1)] {
            guard let target = planeData(plane), let source = picture.planeData(plane) else { continue }
            let targetStride = planeStride(plane), sourceStride = picture.planeStride(plane)
            av_image_copy_plane(target + (top >> shift) * targetStride + (left >> shift), Int32(targetStride),
                                source + (skipY >> shift) * sourceStride + (skipX >> shift), Int32(sourceStride),
                                Int32(width >> shift), Int32(height >> shift))
        }
    }

    /// Crops the picture in place to the rectangle (its buffers stay; only where the planes start and the
    /// size change), as a decoder's cropping does. The rectangle lies inside the picture.
    public func crop(x: Int, y: Int, width: Int, height: Int) throws {
        guard x != 0 || y != 0 || width != self.width || height != self.height else { return }
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= self.width, y + height <= self.height else {
            throw FFmpegError(call: "av_frame_apply_cropping",
                              message: "crop \(width)x\(height)+\(x)+\(y) lies outside the \(self.width)x\(self.height) picture")
        }
        pointer.pointee.crop_left = x
        pointer.pointee.crop_top = y
        pointer.pointee.crop_right = self.width - x - width
        pointer.pointee.crop_bottom = self.height - y - height
        try FFmpegError.check(av_frame_apply_cropping(pointer, Int32(AV_FRAME_CROP_UNALIGNED)), "av_frame_apply_cropping")
    }

    /// The part of a rectangle inside the picture, on even coordinates.
    private func clipped(x: Int, y: Int, width: Int, height: Int) -> (Int, Int, Int, Int) {
        let left = max(0, x) & ~1, top = max(0, y) & ~1
        let right = min(self.width, x + width) & ~1, bottom = min(self.height, y + height) & ~1
        return (left, top, right - left, bottom - top)
    }
}
