import CFFmpeg

/// A libavfilter chain that pictures go through one at a time (`ffmpeg -vf`'s text): a buffer source, the
/// chain, a buffer sink. The one owner of its graph, built for the first picture and again when the pictures'
/// shape changes. A chain may hold pictures back (a deinterlacer looks one ahead): `filter` then gives nil
/// until the next one comes out.
public final class PictureFilter {
    private let library: FilterLibrary
    public let description: String
    /// Of the pictures' timestamps (filters that read them, as drawtext's `pts`, see them in it).
    private let timeBase: Rational
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

    /// Whether this FFmpeg's libavfilter loads and has every filter named.
    public static func hasFilters(_ names: [String]) -> Bool {
        guard let library = FilterLibrary.shared else { return false }
        return (["buffer", "buffersink"] + names).allSatisfy { library.filterByName($0) != nil }
    }

    public init(_ description: String, timeBase: Rational = Rational(1, 1)) throws {
        guard let library = FilterLibrary.shared else {
            throw FFmpegError(call: "dlopen(libavfilter)", message: "libavfilter cannot be loaded")
        }
        self.library = library
        self.description = description
        self.timeBase = timeBase
    }

    deinit { library.graphFree(&graph) }

    /// `frame` through the chain: the picture that came out (the filter's until the next call), or nil when
    /// the chain holds it for now.
    public func filter(_ frame: Frame) throws -> Frame? {
        try prepare(for: frame)
        try input.reference(frame)
        // The buffer source takes the reference over (input is left empty).
        try FFmpegError.check(library.sourceAddFrame(bufferSource, input.pointer, 0), "av_buffersrc_add_frame_flags")
        output.unref()
        let result = library.sinkGetFrame(bufferSink, output.pointer)
        if result == reel_averror_eagain() { return nil }
        try FFmpegError.check(result, "av_buffersink_get_frame(\(description))")
        // Some filters count time finer than they were given it (a deinterlacer's fields): back to the pictures'.
        let sinkBase = Rational(library.sinkTimeBase(bufferSink))
        if sinkBase != timeBase && output.pts != Timestamp.noValue {
            output.pts = Timestamp(value: output.pts, timeBase: sinkBase).rescaled(to: timeBase).value
        }
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
        let arguments = "video_size=\(shape.width)x\(shape.height):pix_fmt=\(shape.format.rawValue.rawValue):time_base=\(timeBase):pixel_aspect=\(aspect)"
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
        try FFmpegError.check(library.graphParse(graph, description, &inputs, &outputs), "avfilter_graph_parse2(\(description))")
        guard let chainInput = inputs, let chainOutput = outputs else {
            throw FFmpegError(call: "avfilter_graph_parse2(\(description))", message: "the chain has no open ends")
        }
        try FFmpegError.check(library.link(source, 0, chainInput.pointee.filter_ctx, UInt32(chainInput.pointee.pad_idx)),
                              "avfilter_link")
        try FFmpegError.check(library.link(chainOutput.pointee.filter_ctx, UInt32(chainOutput.pointee.pad_idx), sink, 0),
                              "avfilter_link")
        try FFmpegError.check(library.graphConfig(graph, nil), "avfilter_graph_config(\(description))")
        bufferSource = source
        bufferSink = sink
        self.shape = shape
    }
}
