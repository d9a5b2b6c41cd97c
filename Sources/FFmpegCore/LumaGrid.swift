import CFFmpeg

extension Frame {
    /// The picture's luma at the centres of a `columns` × `rows` grid, each on 0…1 of its range (limited range:
    /// 16 is 0 and 235 is 1, clamped), read in place from the first plane of a YUV picture (8 to 16 bits).
    /// A few hundred samples that stand for the picture in measures of the whole (black, unchanged), without
    /// scaling or copying it. Nil for a picture that is not YUV.
    public func lumaGrid(columns: Int, rows: Int) -> [Float]? {
        guard columns > 0, rows > 0, width > 0, height > 0, let descriptor = av_pix_fmt_desc_get(AVPixelFormat(pointer.pointee.format)),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, descriptor.pointee.nb_components >= 1,
              let plane = planeData(0) else { return nil }
        let depth = Int(descriptor.pointee.comp.0.depth)
        let stride = planeStride(0)
        let wide = depth > 8
        let full = pointer.pointee.color_range == AVCOL_RANGE_JPEG || pixelFormat.rawValue == AV_PIX_FMT_YUVJ420P
            || pixelFormat.rawValue == AV_PIX_FMT_YUVJ422P || pixelFormat.rawValue == AV_PIX_FMT_YUVJ444P
        let scale = Float(1 << depth) / 256
        let (low, high) = full ? (Float(0), Float((1 << depth) - 1)) : (16 * scale, 235 * scale)
        let bigEndian = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BE) != 0
        let shift = Int(descriptor.pointee.comp.0.shift)
        var grid = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            let y = (2 * row + 1) * height / (2 * rows)
            let line = UnsafeRawPointer(plane) + y * stride
            for column in 0..<columns {
                let x = (2 * column + 1) * width / (2 * columns)
                let raw: Float
                if wide {
                    let word = line.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)
                    raw = Float((bigEndian ? word.byteSwapped : word) >> UInt16(shift))
                } else {
                    raw = Float(line.load(fromByteOffset: x, as: UInt8.self))
                }
                grid[row * columns + column] = min(max((raw - low) / (high - low), 0), 1)
            }
        }
        return grid
    }
}
