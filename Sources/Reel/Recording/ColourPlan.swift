import FFmpegCore

/// How a video source's colour reaches the H.264 output (and its stills), as ffmpeg and AVFoundation users
/// expect. Every output is tagged: primaries, transfer, matrix and limited range. An SDR source tagged BT.601
/// (525 or 625 lines) or BT.709 keeps its tags; so does an untagged YUV source, taken as what players assume
/// for its own size (BT.709 from 1280x720 up, BT.601 below), so scaling it needs no matrix conversion (a
/// 1080p camera file into a 352x288 tier stays BT.709, tagged); an RGB source (a screen) gets what players
/// assume for the output's size. The
/// Scaler converts each picture from its own matrix and range (or what players assume for its size) into the
/// output's. HDR sources (PQ, HLG) and BT.2020 ones are turned into BT.709 SDR by a ToneMapper first, or
/// refused before anything is written when this FFmpeg cannot tone-map.
struct ColourPlan: Sendable, Equatable {
    /// What the output is tagged with and the Scaler converts into.
    let output: ColourDescription
    /// What the source is (every part specified) when its pictures go through a ToneMapper first; else nil.
    let toneMappedSource: ColourDescription?

    /// SDR tags a source keeps: BT.709 and BT.601's two flavours (and the old SD transfer names).
    static let keptPrimaries: Set<ColourPrimaries> = [.bt709, .bt470bg, .smpte170m]
    static let keptTransfers: Set<TransferCurve> = [.bt709, .smpte170m, .gamma22, .gamma28]
    static let keptMatrices: Set<ColourMatrix> = [.bt709, .bt470bg, .smpte170m]

    /// `sourceName` names the source in the refusal message.
    init(source: ColourDescription, bitsPerComponent: Int, outputWidth: Int, outputHeight: Int, sourceName: String,
         toneMappingAvailable: @autoclosure () -> Bool = ToneMapper.isAvailable) throws {
        // Asked only for HDR sources: answering loads libavfilter, which an SDR recording never needs.
        guard source.isHighDynamicRange || source.isWideGamut else {
            output = ColourPlan.sdrOutput(for: source, outputWidth: outputWidth, outputHeight: outputHeight)
            toneMappedSource = nil
            return
        }
        let resolved = ColourPlan.resolvedWideSource(source)
        guard toneMappingAvailable() else {
            throw ReelError.invalidInput(ColourPlan.refusal(sourceName: sourceName, colour: resolved,
                                                            bitsPerComponent: bitsPerComponent))
        }
        output = .bt709
        toneMappedSource = resolved
    }

    /// The plan for a stream of an opened source.
    init(for stream: SourceStream, outputWidth: Int, outputHeight: Int, sourceName: String) throws {
        var source = stream.colour
        if stream.width > 0, stream.pictureFormat != .none, !stream.pictureFormat.isRGB,
           !source.isHighDynamicRange, !source.isWideGamut {
            source = source.resolved(for: stream.pictureFormat, width: stream.width, height: stream.height)
        }
        try self.init(source: source, bitsPerComponent: stream.bitsPerComponent, outputWidth: outputWidth,
                      outputHeight: outputHeight, sourceName: sourceName)
    }

    /// The tone mapper the source's pictures go through first, if any.
    func makeToneMapper() throws -> ToneMapper? {
        try toneMappedSource.map { try ToneMapper(source: $0) }
    }

    static func sdrOutput(for source: ColourDescription, outputWidth: Int, outputHeight: Int) -> ColourDescription {
        let base: ColourDescription
        if keptMatrices.contains(source.matrix) {
            base = source.matrix == .bt709 ? .bt709 : source.matrix == .bt470bg ? .bt601Line625 : .bt601
        } else if keptPrimaries.contains(source.primaries) {
            base = source.primaries == .bt709 ? .bt709 : source.primaries == .bt470bg ? .bt601Line625 : .bt601
        } else {
            base = .standard(forWidth: outputWidth, height: outputHeight)
        }
        return ColourDescription(
            primaries: keptPrimaries.contains(source.primaries) ? source.primaries : base.primaries,
            transfer: keptTransfers.contains(source.transfer) ? source.transfer : base.transfer,
            matrix: keptMatrices.contains(source.matrix) ? source.matrix : base.matrix,
            range: .limited)
    }

    /// An HDR or BT.2020 source with what its tags leave open filled in as BT.2020 (limited range).
    static func resolvedWideSource(_ source: ColourDescription) -> ColourDescription {
        ColourDescription(primaries: source.primaries == .unspecified ? .bt2020 : source.primaries,
                          transfer: source.transfer == .unspecified ? .bt709 : source.transfer,
                          matrix: source.matrix.isYUV ? source.matrix : .bt2020nc,
                          range: source.range == .unspecified ? .limited : source.range)
    }

    /// "IN.mov is HDR (HLG, BT.2020 10-bit): ..." with the ffmpeg command that converts it.
    static func refusal(sourceName: String, colour: ColourDescription, bitsPerComponent: Int) -> String {
        var traits: [String] = []
        if colour.transfer == .aribStdB67 { traits.append("HLG") }
        if colour.transfer == .smpte2084 { traits.append("PQ") }
        traits.append((colour.primaries == .bt2020 ? "BT.2020" : "\(colour.primaries)")
                      + (bitsPerComponent > 0 ? " \(bitsPerComponent)-bit" : ""))
        let kind = colour.isHighDynamicRange ? "HDR" : "wide-gamut"
        return "\(sourceName) is \(kind) (\(traits.joined(separator: ", "))): Reel writes SDR video and this FFmpeg "
            + "cannot tone-map it (its libavfilter has no zscale or tonemap filter); convert it first, e.g. "
            + "ffmpeg -i \(sourceName) -vf '\(ToneMapper.filterDescription(for: colour))' sdr.mov"
    }
}
