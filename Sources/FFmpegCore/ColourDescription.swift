import CFFmpeg

/// What a picture's numbers mean: the primaries and transfer curve of its colours, the matrix that turns RGB
/// into YUV, and whether YUV uses the limited ("tv", video) or the full ("pc", JPEG) range. H.264 carries it in
/// its VUI, QuickTime in the colr atom, and ffprobe shows it as color_primaries, color_trc, color_space and
/// color_range. Players that find none assume a standard by picture size (`standard(forWidth:height:)`).
public struct ColourDescription: Sendable, Hashable, CustomStringConvertible {
    public var primaries: ColourPrimaries
    public var transfer: TransferCurve
    public var matrix: ColourMatrix
    public var range: ColourRange

    public init(primaries: ColourPrimaries, transfer: TransferCurve, matrix: ColourMatrix, range: ColourRange) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.range = range
    }

    public static let unspecified = ColourDescription(primaries: .unspecified, transfer: .unspecified,
                                                      matrix: .unspecified, range: .unspecified)
    /// HD video (ITU-R BT.709), limited range.
    public static let bt709 = ColourDescription(primaries: .bt709, transfer: .bt709, matrix: .bt709, range: .limited)
    /// SD video (ITU-R BT.601, 525 lines, as SMPTE 170M defines it), limited range.
    public static let bt601 = ColourDescription(primaries: .smpte170m, transfer: .smpte170m, matrix: .smpte170m,
                                                range: .limited)
    /// SD video of 625 lines (BT.601 with EBU primaries, as PAL and DV), limited range.
    public static let bt601Line625 = ColourDescription(primaries: .bt470bg, transfer: .smpte170m, matrix: .bt470bg,
                                                       range: .limited)
    /// JPEG (JFIF): the BT.601 matrix over the full range.
    public static let jpeg = ColourDescription(primaries: .unspecified, transfer: .unspecified, matrix: .bt470bg,
                                               range: .full)

    /// What most players assume for untagged video: BT.709 for HD pictures, 1280 wide or 720 high and up;
    /// BT.601 below. (swscale on its own assumes BT.601 at every size, which is why untagged 720p output used
    /// to get BT.601 numbers.)
    public static func standard(forWidth width: Int, height: Int) -> ColourDescription {
        width >= 1280 || height >= 720 ? .bt709 : .bt601
    }

    /// The description with what it leaves unspecified filled in as players assume for a picture of this
    /// format and size: RGB is full range without a matrix, JPEG's YUV (yuvj) is BT.601 over the full range,
    /// and other YUV is limited range with the standard for its size.
    public func resolved(for format: PixelFormat, width: Int, height: Int) -> ColourDescription {
        let standard = ColourDescription.standard(forWidth: width, height: height)
        var resolved = self
        if primaries == .unspecified { resolved.primaries = standard.primaries }
        if transfer == .unspecified { resolved.transfer = standard.transfer }
        if format.isRGB {
            resolved.matrix = .rgb
            resolved.range = .full
        } else if format.isFullRangeYUV {
            if !matrix.isYUV { resolved.matrix = ColourDescription.jpeg.matrix }
            resolved.range = .full
        } else {
            if !matrix.isYUV { resolved.matrix = standard.matrix }
            if range == .unspecified { resolved.range = .limited }
        }
        return resolved
    }

    /// PQ (SMPTE ST 2084) or HLG (ARIB STD-B67): light levels above SDR's white, which need tone-mapping.
    public var isHighDynamicRange: Bool { transfer == .smpte2084 || transfer == .aribStdB67 }

    /// BT.2020 primaries or matrix: colours outside BT.709's gamut, which need mapping into it.
    public var isWideGamut: Bool { primaries == .bt2020 || matrix == .bt2020nc || matrix == .bt2020c }

    public var description: String { "\(primaries)/\(transfer)/\(matrix)/\(range)" }
}

/// The chromaticities of a picture's red, green, blue and white (color_primaries).
public struct ColourPrimaries: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: AVColorPrimaries
    public init(_ rawValue: AVColorPrimaries) { self.rawValue = rawValue }
    public static let unspecified = ColourPrimaries(AVCOL_PRI_UNSPECIFIED)
    public static let bt709 = ColourPrimaries(AVCOL_PRI_BT709)
    public static let bt470bg = ColourPrimaries(AVCOL_PRI_BT470BG)
    public static let smpte170m = ColourPrimaries(AVCOL_PRI_SMPTE170M)
    public static let bt2020 = ColourPrimaries(AVCOL_PRI_BT2020)
    public var description: String { av_color_primaries_name(rawValue).map { String(cString: $0) } ?? "unknown" }
}

/// The curve between light and code values (color_trc).
public struct TransferCurve: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: AVColorTransferCharacteristic
    public init(_ rawValue: AVColorTransferCharacteristic) { self.rawValue = rawValue }
    public static let unspecified = TransferCurve(AVCOL_TRC_UNSPECIFIED)
    public static let bt709 = TransferCurve(AVCOL_TRC_BT709)
    public static let smpte170m = TransferCurve(AVCOL_TRC_SMPTE170M)
    /// BT.470 System M ("gamma 2.2") and System B/G ("gamma 2.8"), as old SD sources are tagged.
    public static let gamma22 = TransferCurve(AVCOL_TRC_GAMMA22)
    public static let gamma28 = TransferCurve(AVCOL_TRC_GAMMA28)
    /// PQ, the HDR10 and Dolby Vision curve.
    public static let smpte2084 = TransferCurve(AVCOL_TRC_SMPTE2084)
    /// HLG, the broadcast and phone HDR curve.
    public static let aribStdB67 = TransferCurve(AVCOL_TRC_ARIB_STD_B67)
    public var description: String { av_color_transfer_name(rawValue).map { String(cString: $0) } ?? "unknown" }
}

/// The matrix between RGB and YUV (colorspace); `rgb` for pictures stored as RGB.
public struct ColourMatrix: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: AVColorSpace
    public init(_ rawValue: AVColorSpace) { self.rawValue = rawValue }
    public static let rgb = ColourMatrix(AVCOL_SPC_RGB)
    public static let unspecified = ColourMatrix(AVCOL_SPC_UNSPECIFIED)
    public static let bt709 = ColourMatrix(AVCOL_SPC_BT709)
    public static let bt470bg = ColourMatrix(AVCOL_SPC_BT470BG)
    public static let smpte170m = ColourMatrix(AVCOL_SPC_SMPTE170M)
    public static let bt2020nc = ColourMatrix(AVCOL_SPC_BT2020_NCL)
    public static let bt2020c = ColourMatrix(AVCOL_SPC_BT2020_CL)

    /// A matrix swscale can convert YUV with (not RGB, unspecified, reserved or YCgCo).
    public var isYUV: Bool {
        [AVCOL_SPC_BT709, AVCOL_SPC_FCC, AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_SMPTE240M,
         AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL].contains(rawValue)
    }

    /// swscale's coefficient set (SWS_CS_*): bt470bg and smpte170m are the same BT.601 matrix.
    var swscaleCoefficients: Int32 {
        switch rawValue {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return SWS_CS_ITU601
        }
    }

    /// Whether converting between the two changes nothing.
    public func convertsLike(_ other: ColourMatrix) -> Bool {
        self == other || (isYUV && other.isYUV && swscaleCoefficients == other.swscaleCoefficients)
    }

    public var description: String { av_color_space_name(rawValue).map { String(cString: $0) } ?? "unknown" }
}

/// Limited ("tv": luma 16–235) or full ("pc": 0–255) range (color_range).
public struct ColourRange: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: AVColorRange
    public init(_ rawValue: AVColorRange) { self.rawValue = rawValue }
    public static let unspecified = ColourRange(AVCOL_RANGE_UNSPECIFIED)
    public static let limited = ColourRange(AVCOL_RANGE_MPEG)
    public static let full = ColourRange(AVCOL_RANGE_JPEG)
    public var description: String { av_color_range_name(rawValue).map { String(cString: $0) } ?? "unknown" }
}
