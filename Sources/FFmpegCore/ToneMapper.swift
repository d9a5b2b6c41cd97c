import CFFmpeg

/// Turns HDR pictures (PQ, HLG) into BT.709 SDR with libavfilter's zscale (zimg) and tonemap filters, in
/// FFmpeg's documented recipe: to linear light (100 nits = 1.0), to BT.709 primaries, Hable's curve (with the
/// peak from the pictures' mastering metadata, else 1000 nits), back to BT.709's transfer, matrix and
/// limited range, yuv420p at the same size. BT.2020 pictures with an SDR transfer only have their gamut mapped
/// to BT.709. The one owner of its filter graph, built for the first picture and again when the pictures'
/// shape changes; used only for such sources (the Scaler handles everything else).
public final class ToneMapper {
    private let library: FilterLibrary
    /// What the source's pictures are where a picture carries no tags of its own.
    private let sourceColour: ColourDescription
    public let filterDescription: String
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var bufferSource: UnsafeMutablePointer<AVFilterContext>?
    private var bufferSink: UnsafeMutablePointer<AVFilterContext>?
    private var shape: Shape?
    private let input = Frame()
    private let output = Frame()

    private struct Shape: Equatable {
        var width: Int
        var height: Int
        var format: PixelFormat
        var sampleAspect: Rational
    }

    /// Whether this FFmpeg can tone-map: libavfilter loads and has zscale (built with libzimg) and tonemap.
    public static let isAvailable: Bool = {
        guard let library = FilterLibrary.shared else { return false }
        let names: [String] = ["buffer", "buffersink", "format", "zscale", "tonemap"]
        return names.allSatisfy { name in library.filterByName(name) != nil }
    }()

    /// The filter chain for pictures described by `colour`, as `ffmpeg -vf` takes it (it reads the pictures'
    /// own tags, so they must be set).
    public static func filterDescription(for colour: ColourDescription) -> String {
        let toBT709 = "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        guard colour.isHighDynamicRange else { return "zscale=p=bt709:t=bt709:m=bt709:r=tv,format=yuv420p" }
        return "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0," + toBT709
    }

    /// `source`: what the pictures are, every part specified (pictures' own tags take precedence).
    public init(source: ColourDescription) throws {
        guard let library = FilterLibrary.shared, ToneMapper.isAvailable else {
            throw FFmpegError(call: "avfilter_get_by_name(zscale)",
                              message: "this FFmpeg's libavfilter has no zscale (libzimg) or tonemap filter")
        }
        self.library = library
        sourceColour = source
        filterDescription = ToneMapper.filterDescription(for: source)
    }

    deinit { library.graphFree(&graph) }

    /// `frame` as BT.709 SDR yuv420p, with its timestamps and pixel aspect. The result belongs to the tone
    /// mapper and stays valid until the next call.
    public func convert(_ frame: Frame) throws -> Frame {
        try prepare(for: frame)
        try input.reference(frame)
        let own = frame.colour
        input.colour = ColourDescription(
            primaries: own.primaries == .unspecified ? sourceColour.primaries : own.primaries,
            transfer: own.transfer == .unspecified ? sourceColour.transfer : own.transfer,
            matrix: own.matrix.isYUV ? own.matrix : sourceColour.matrix,
            range: own.range == .unspecified ? sourceColour.range : own.range)
        // The buffer source takes the reference over (input is left empty); every filter here gives one picture
        // for one, so the picture is ready at the sink at once.
        try FFmpegError.check(library.sourceAddFrame(bufferSource, input.pointer, 0), "av_buffersrc_add_frame_flags")
        output.unref()
        try FFmpegError.check(library.sinkGetFrame(bufferSink, output.pointer), "av_buffersink_get_frame(\(filterDescription))")
        return output
    }

    private func prepare(for frame: Frame) throws {
        let shape = Shape(width: frame.width, height: frame.height, format: frame.pixelFormat,
                          sampleAspect: frame.sampleAspectRatio)
        if graph != nil && shape == self.shape { return }
        // A graph that fails to build is freed with the next attempt or in deinit; it is never used half-built.
        library.graphFree(&graph)
        self.shape = nil
        guard let graph = library.graphAlloc() else { throw FFmpegError(call: "avfilter_graph_alloc", message: "out of memory") }
        self.graph = graph
        let aspect = shape.sampleAspect.isValid ? shape.sampleAspect : Rational(1, 1)
        let arguments = "video_size=\(shape.width)x\(shape.height):pix_fmt=\(shape.format.rawValue.rawValue):time_base=1/1:pixel_aspect=\(aspect)"
        var source: FilterLibrary.Context? = nil
        var sink: FilterLibrary.Context? = nil
        try FFmpegError.check(library.graphCreateFilter(&source, library.filterByName("buffer"), "in", arguments, nil, graph),
                              "avfilter_graph_create_filter(buffer \(arguments))")
        try FFmpegError.check(library.graphCreateFilter(&sink, library.filterByName("buffersink"), "out", nil, nil, graph),
                              "avfilter_graph_create_filter(buffersink)")
        var inputs: FilterLibrary.InOut? = nil
        var outputs: FilterLibrary.InOut? = nil
        defer {
            library.inOutFree(&inputs)
            library.inOutFree(&outputs)
        }
        try FFmpegError.check(library.graphParse(graph, filterDescription, &inputs, &outputs),
                              "avfilter_graph_parse2(\(filterDescription))")
        guard let chainInput = inputs, let chainOutput = outputs else {
            throw FFmpegError(call: "avfilter_graph_parse2(\(filterDescription))", message: "the chain has no open ends")
        }
        try FFmpegError.check(library.link(source, 0, chainInput.pointee.filter_ctx, UInt32(chainInput.pointee.pad_idx)),
                              "avfilter_link")
        try FFmpegError.check(library.link(chainOutput.pointee.filter_ctx, UInt32(chainOutput.pointee.pad_idx), sink, 0),
                              "avfilter_link")
        try FFmpegError.check(library.graphConfig(graph, nil), "avfilter_graph_config(\(filterDescription))")
        bufferSource = source
        bufferSink = sink
        self.shape = shape
    }
}
