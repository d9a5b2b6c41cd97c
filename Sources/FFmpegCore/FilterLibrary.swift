import CFFmpeg
import Glibc

/// The few libavfilter functions Reel calls, looked up in the library loaded on first use. libavfilter is
/// not linked: it brings ~50 libraries of its own (speech voices, SVG, Vulkan...) that every start-up would
/// pay for, while only lavfi sources need it.
struct FilterLibrary: Sendable {
    typealias Graph = UnsafeMutablePointer<AVFilterGraph>
    typealias Context = UnsafeMutablePointer<AVFilterContext>
    typealias InOut = UnsafeMutablePointer<AVFilterInOut>

    let graphAlloc: @convention(c) () -> Graph?
    let graphFree: @convention(c) (UnsafeMutablePointer<Graph?>?) -> Void
    let graphParse: @convention(c) (Graph?, UnsafePointer<CChar>?, UnsafeMutablePointer<InOut?>?,
                                    UnsafeMutablePointer<InOut?>?) -> Int32
    let graphConfig: @convention(c) (Graph?, UnsafeMutableRawPointer?) -> Int32
    let graphCreateFilter: @convention(c) (UnsafeMutablePointer<Context?>?, UnsafePointer<AVFilter>?, UnsafePointer<CChar>?,
                                           UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Graph?) -> Int32
    let filterByName: @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    let link: @convention(c) (Context?, UInt32, Context?, UInt32) -> Int32
    let inOutFree: @convention(c) (UnsafeMutablePointer<InOut?>?) -> Void
    let padType: @convention(c) (OpaquePointer?, Int32) -> AVMediaType
    let sinkGetFrame: @convention(c) (Context?, UnsafeMutablePointer<AVFrame>?) -> Int32
    let sinkTimeBase: @convention(c) (UnsafePointer<AVFilterContext>?) -> AVRational
    let sourceAddFrame: @convention(c) (Context?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32

    /// nil when the library or one of the functions is missing.
    static let shared: FilterLibrary? = {
        guard let handle = dlopen(reel_avfilter_soname(), RTLD_LAZY | RTLD_GLOBAL) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let graphAlloc = symbol("avfilter_graph_alloc", as: (@convention(c) () -> Graph?).self),
              let graphFree = symbol("avfilter_graph_free", as: (@convention(c) (UnsafeMutablePointer<Graph?>?) -> Void).self),
              let graphParse = symbol("avfilter_graph_parse2", as: (@convention(c) (Graph?, UnsafePointer<CChar>?, UnsafeMutablePointer<InOut?>?, UnsafeMutablePointer<InOut?>?) -> Int32).self),
              let graphConfig = symbol("avfilter_graph_config", as: (@convention(c) (Graph?, UnsafeMutableRawPointer?) -> Int32).self),
              let graphCreateFilter = symbol("avfilter_graph_create_filter", as: (@convention(c) (UnsafeMutablePointer<Context?>?, UnsafePointer<AVFilter>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Graph?) -> Int32).self),
              let filterByName = symbol("avfilter_get_by_name", as: (@convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?).self),
              let link = symbol("avfilter_link", as: (@convention(c) (Context?, UInt32, Context?, UInt32) -> Int32).self),
              let inOutFree = symbol("avfilter_inout_free", as: (@convention(c) (UnsafeMutablePointer<InOut?>?) -> Void).self),
              let padType = symbol("avfilter_pad_get_type", as: (@convention(c) (OpaquePointer?, Int32) -> AVMediaType).self),
              let sinkGetFrame = symbol("av_buffersink_get_frame", as: (@convention(c) (Context?, UnsafeMutablePointer<AVFrame>?) -> Int32).self),
              let sinkTimeBase = symbol("av_buffersink_get_time_base", as: (@convention(c) (UnsafePointer<AVFilterContext>?) -> AVRational).self),
              let sourceAddFrame = symbol("av_buffersrc_add_frame_flags", as: (@convention(c) (Context?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32).self)
        else { return nil }
        return FilterLibrary(graphAlloc: graphAlloc, graphFree: graphFree, graphParse: graphParse, graphConfig: graphConfig,
                             graphCreateFilter: graphCreateFilter, filterByName: filterByName, link: link,
                             inOutFree: inOutFree, padType: padType, sinkGetFrame: sinkGetFrame, sinkTimeBase: sinkTimeBase,
                             sourceAddFrame: sourceAddFrame)
    }()
}
