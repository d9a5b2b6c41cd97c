import CFFmpeg

/// Turns HDR pictures (PQ, HLG) into BT.709 SDR with libavfilter's zscale (zimg) and tonemap filters, in
/// FFmpeg's documented recipe: to linear light (100 nits = 1.0), to BT.709 primaries, Hable's curve (with the
/// peak from the pictures' mastering metadata, else 1000 nits), back to BT.709's transfer, matrix and
/// limited range, yuv420p at the same size. BT.2020 pictures with an SDR transfer only have their gamut mapped
/// to BT.709. The one owner of its filter graph, built for the first picture and again when the pictures'
/// shape changes; used only for such sources (the Scaler handles everything else).
public final class ToneMapper {
    /// What the source's pictures are where a picture carries no tags of its own.
    private let sourceColour: ColourDescription
    private let chain: PictureFilter
    public var filterDescription: String { chain.description }
    private let input = Frame()

    /// Whether this FFmpeg can tone-map: libavfilter loads and has zscale (built with libzimg) and tonemap.
    public static let isAvailable: Bool = PictureFilter.hasFilters(["format", "zscale", "tonemap"])

    /// The filter chain for pictures described by `colour`, as `ffmpeg -vf` takes it (it reads the pictures'
    /// own tags, so they must be set).
    public static func filterDescription(for colour: ColourDescription) -> String {
        let toBT709 = "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        guard colour.isHighDynamicRange else { return "zscale=p=bt709:t=bt709:m=bt709:r=tv,format=yuv420p" }
        return "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0," + toBT709
    }

    /// `source`: what the pictures are, every part specified (pictures' own tags take precedence).
    public init(source: ColourDescription) throws {
        guard ToneMapper.isAvailable else {
            throw FFmpegError(call: "avfilter_get_by_name(zscale)",
                              message: "this FFmpeg's libavfilter has no zscale (libzimg) or tonemap filter")
        }
        sourceColour = source
        chain = try PictureFilter(ToneMapper.filterDescription(for: source))
    }

    /// `frame` as BT.709 SDR yuv420p, with its timestamps and pixel aspect. The result belongs to the tone
    /// mapper and stays valid until the next call.
    public func convert(_ frame: Frame) throws -> Frame {
        try input.reference(frame)
        let own = frame.colour
        input.colour = ColourDescription(
            primaries: own.primaries == .unspecified ? sourceColour.primaries : own.primaries,
            transfer: own.transfer == .unspecified ? sourceColour.transfer : own.transfer,
            matrix: own.matrix.isYUV ? own.matrix : sourceColour.matrix,
            range: own.range == .unspecified ? sourceColour.range : own.range)
        // Every filter here gives one picture for one, so the picture is ready at the sink at once.
        guard let output = try chain.filter(input) else {
            throw FFmpegError(call: "av_buffersink_get_frame(\(filterDescription))", message: "the tone mapper held a picture back")
        }
        return output
    }
}
