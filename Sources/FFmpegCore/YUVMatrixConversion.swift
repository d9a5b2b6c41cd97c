import CFFmpeg

/// Re-codes Y'CbCr pictures from one YUV matrix to another (a BT.601 camera drawn into a BT.709 picture, an HD
/// capture scaled into an SD tier: the Scaler re-codes what it scaled) in place, without going through RGB:
/// the two matrices compose into one linear map on (Y', Cb, Cr) in which luma passes unchanged and gains a term
/// of the chroma, and the chroma depends on the chroma alone. In 4:2:0 each chroma sample's luma term is added
/// to the four luma samples it covers (what point sampling does).
/// swscale converts through RGB for several times the cost; this lands within one level of the exact conversion.
public struct YUVMatrixConversion: Sendable, Equatable {
    /// Code-value coefficients in 1/65536: luma += lumaFromCb·ΔCb + lumaFromCr·ΔCr; chroma' = 128 + row·(ΔCb, ΔCr).
    public let lumaFromCb: Int32, lumaFromCr: Int32
    public let cbFromCb: Int32, cbFromCr: Int32
    public let crFromCb: Int32, crFromCr: Int32

    /// The conversion between two YUV matrices in `range`; nil when either has no known luma weights or
    /// the two convert alike.
    public init?(from source: ColourMatrix, to target: ColourMatrix, range: ColourRange) {
        guard let (kr, kb) = source.lumaWeights, let (kr2, kb2) = target.lumaWeights, !source.convertsLike(target) else { return nil }
        // Normalised components (E'Y in 0...1, E'Cb and E'Cr in -0.5...0.5) through R'G'B' to the target's.
        // R' = Y + 2(1-kr)·Cr, B' = Y + 2(1-kb)·Cb, G' = (Y - kr·R' - kb·B') / kg: each colour is Y plus a term of
        // the chroma, so Y' (target) = Y + a·Cb + b·Cr, and the target's chroma differences lose Y entirely.
        let kg = 1 - kr - kb, kg2 = 1 - kr2 - kb2
        let rCr = 2 * (1 - kr), bCb = 2 * (1 - kb)
        let gCb = -kb * bCb / kg, gCr = -kr * rCr / kg
        // Target luma's chroma terms.
        let yCb = kg2 * gCb + kb2 * bCb, yCr = kr2 * rCr + kg2 * gCr
        // Target chroma: (B' - Y')/(2(1-kb2)) and (R' - Y')/(2(1-kr2)).
        let cbCb = (bCb - yCb) / (2 * (1 - kb2)), cbCr = -yCr / (2 * (1 - kb2))
        let crCb = -yCb / (2 * (1 - kr2)), crCr = (rCr - yCr) / (2 * (1 - kr2))
        // In code values: luma spans 219 (full: 255) levels, chroma 224 (full: 255).
        let lumaScale = range == .full ? 255.0 : 219.0, chromaScale = range == .full ? 255.0 : 224.0
        func fixed(_ value: Double) -> Int32 { Int32((value * 65536).rounded()) }
        lumaFromCb = fixed(yCb * lumaScale / chromaScale)
        lumaFromCr = fixed(yCr * lumaScale / chromaScale)
        (cbFromCb, cbFromCr, crFromCb, crFromCr) = (fixed(cbCb), fixed(cbCr), fixed(crCb), fixed(crCr))
    }

    /// One chroma sample's new Cb and Cr, and what its luma samples gain.
    @inline(__always)
    public func convert(cb: UInt8, cr: UInt8) -> (lumaOffset: Int32, cb: UInt8, cr: UInt8) {
        let dCb = Int32(cb) - 128, dCr = Int32(cr) - 128
        let half: Int32 = 1 << 15
        let offset = (lumaFromCb * dCb + lumaFromCr * dCr + half) >> 16
        let newCb = 128 + ((cbFromCb * dCb + cbFromCr * dCr + half) >> 16)
        let newCr = 128 + ((crFromCb * dCb + crFromCr * dCr + half) >> 16)
        return (offset, UInt8(clamping: newCb), UInt8(clamping: newCr))
    }
}

extension ColourMatrix {
    /// Kr and Kb of the matrix (its luma weights of red and blue); nil for RGB and the unknown.
    public var lumaWeights: (kr: Double, kb: Double)? {
        switch rawValue {
        case AVCOL_SPC_BT709: return (0.2126, 0.0722)
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return (0.299, 0.114)
        case AVCOL_SPC_FCC: return (0.30, 0.11)
        case AVCOL_SPC_SMPTE240M: return (0.212, 0.087)
        case AVCOL_SPC_BT2020_NCL: return (0.2627, 0.0593)
        default: return nil
        }
    }
}

extension Frame {
    /// Re-codes this yuv420p picture, which the caller owns and has made writable, with `conversion`.
    public func convertMatrix(_ conversion: YUVMatrixConversion) {
        precondition(pixelFormat == .yuv420p, "convertMatrix re-codes yuv420p pictures")
        guard let luma = planeData(0), let cb = planeData(1), let cr = planeData(2) else { return }
        let lumaStride = planeStride(0), cbStride = planeStride(1), crStride = planeStride(2)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        for row in 0..<chromaHeight {
            let cbRow = cb + row * cbStride, crRow = cr + row * crStride
            let top = luma + 2 * row * lumaStride
            let bottom = 2 * row + 1 < height ? top + lumaStride : nil
            for column in 0..<chromaWidth {
                let (offset, newCb, newCr) = conversion.convert(cb: cbRow[column], cr: crRow[column])
                cbRow[column] = newCb
                crRow[column] = newCr
                guard offset != 0 else { continue }
                let x = 2 * column
                top[x] = UInt8(clamping: Int32(top[x]) + offset)
                if x + 1 < width { top[x + 1] = UInt8(clamping: Int32(top[x + 1]) + offset) }
                if let bottom {
                    bottom[x] = UInt8(clamping: Int32(bottom[x]) + offset)
                    if x + 1 < width { bottom[x + 1] = UInt8(clamping: Int32(bottom[x + 1]) + offset) }
                }
            }
        }
    }
}
