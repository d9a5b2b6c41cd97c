import CFFmpeg

/// A lavfi source graph ("testsrc2=size=640x480:rate=30", "sine=frequency=440,volume=0.5") read straight
/// from its buffer sink: frames come out as the filters made them, without the lavfi input device, which
/// copies each picture into a packet for a rawvideo decoder to wrap again. The one owner of its AVFilterGraph.
public final class FilterGraphSource {
    public enum ReadResult: Equatable {
        case frame
        case endOfFile
        case tryAgain
    }

    private let library: FilterLibrary
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let sink: UnsafeMutablePointer<AVFilterContext>
    public let description: String
    public let mediaType: MediaType
    /// Of the frames' timestamps.
    public let timeBase: Rational

    /// Builds and configures `description`, which must be a source graph with one unconnected output.
    /// With `pixelFormats`, pictures are converted inside the graph to the first of them it can reach.
    public init(description: String, pixelFormats: [PixelFormat] = []) throws {
        guard let library = FilterLibrary.shared else {
            throw FFmpegError(call: "dlopen(\(String(cString: reel_avfilter_soname())))",
                              message: "libavfilter cannot be loaded; install FFmpeg's libavfilter")
        }
        self.library = library
        self.description = description
        guard let graph = library.graphAlloc() else {
            throw FFmpegError(call: "avfilter_graph_alloc", message: "out of memory")
        }
        self.graph = graph
        // From here on, a failure frees the graph in deinit... which does not run for an object that never
        // finished init: free it explicitly on each path out.
        do {
            var inputs: FilterLibrary.InOut? = nil
            var outputs: FilterLibrary.InOut? = nil
            defer {
                library.inOutFree(&inputs)
                library.inOutFree(&outputs)
            }
            try FFmpegError.check(library.graphParse(graph, description, &inputs, &outputs),
                                  "avfilter_graph_parse2(\(description))")
            guard inputs == nil else {
                throw FFmpegError(call: "avfilter_graph_parse2(\(description))",
                                  message: "the graph has an unconnected input; a source graph must make its own frames")
            }
            guard let output = outputs, output.pointee.next == nil else {
                throw FFmpegError(call: "avfilter_graph_parse2(\(description))",
                                  message: outputs == nil ? "the graph has no output" : "the graph has more than one output")
            }
            let padType = library.padType(output.pointee.filter_ctx.pointee.output_pads, output.pointee.pad_idx)
            guard padType == AVMEDIA_TYPE_VIDEO || padType == AVMEDIA_TYPE_AUDIO else {
                throw FFmpegError(call: "avfilter_graph_parse2(\(description))", message: "the graph's output is neither video nor audio")
            }
            mediaType = padType == AVMEDIA_TYPE_VIDEO ? .video : .audio
            var sink: FilterLibrary.Context? = nil
            let sinkName = mediaType == .video ? "buffersink" : "abuffersink"
            try FFmpegError.check(library.graphCreateFilter(&sink, library.filterByName(sinkName), "out", nil, nil, graph),
                                  "avfilter_graph_create_filter(\(sinkName))")
            guard let sink else { throw FFmpegError(call: "avfilter_graph_create_filter", message: "no sink") }
            if mediaType == .video && !pixelFormats.isEmpty {
                let formats = pixelFormats.map { $0.rawValue.rawValue }
                _ = try formats.withUnsafeBytes { bytes in
                    try FFmpegError.check(
                        av_opt_set_bin(sink, "pix_fmts", bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                       Int32(bytes.count), AV_OPT_SEARCH_CHILDREN), "av_opt_set_bin(pix_fmts)")
                }
            }
            try FFmpegError.check(library.link(output.pointee.filter_ctx, UInt32(output.pointee.pad_idx), sink, 0),
                                  "avfilter_link")
            try FFmpegError.check(library.graphConfig(graph, nil), "avfilter_graph_config(\(description))")
            self.sink = sink
            timeBase = Rational(library.sinkTimeBase(sink))
        } catch {
            library.graphFree(&self.graph)
            throw error
        }
    }

    deinit { library.graphFree(&graph) }

    /// The graph's next frame into `frame` (unreferenced first).
    public func read(into frame: Frame) throws -> ReadResult {
        frame.unref()
        let result = library.sinkGetFrame(sink, frame.pointer)
        if result >= 0 { return .frame }
        if result == reel_averror_eagain() { return .tryAgain }
        if result == reel_averror_eof() { return .endOfFile }
        throw FFmpegError(code: result, call: "av_buffersink_get_frame(\(description))")
    }
}
