import CFFmpeg
import Glibc
import SystemSupport

/// An opened input (a device, a lavfi graph or a file): the one owner of its AVFormatContext.
public final class InputContext {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interrupt: InterruptFlag
    public let url: String
    public private(set) var streams: [StreamInfo] = []
    /// A named pipe's descriptor, read through FFmpeg's pipe: protocol; closed after the format context (a
    /// stored property is released after `deinit` runs).
    private var pipeDescriptor: FileDescriptor?

    public enum ReadResult: Equatable {
        case packet
        case endOfFile
        /// The device had nothing yet (non-blocking inputs); try again shortly.
        case tryAgain
    }

    /// Opens `url` with the named input format ("v4l2", "alsa", "lavfi", nil for files) and its options.
    /// Options the input does not know are an error naming them, as a typo should not pass silently.
    public init(url: String, formatName: String?, options: [(key: String, value: String)] = [],
                interrupt: InterruptFlag = InterruptFlag(), probeStreams: Bool = true) throws {
        self.url = url
        self.interrupt = interrupt
        var inputFormat: UnsafePointer<AVInputFormat>? = nil
        if let formatName {
            FFmpegLibrary.ensureDevicesRegistered()
            guard let format = av_find_input_format(formatName) else {
                throw FFmpegError(call: "av_find_input_format", message: "FFmpeg has no input format '\(formatName)'")
            }
            inputFormat = format
        }
        guard let allocated = avformat_alloc_context() else {
            throw FFmpegError(call: "avformat_alloc_context", message: "out of memory")
        }
        allocated.pointee.interrupt_callback.callback = interruptCallback
        allocated.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        context = allocated
        let dictionary = OptionDictionary(options)
        // A named pipe is opened once, here, without blocking (see NamedPipe); FFmpeg reads its descriptor.
        var openURL = url
        if formatName == nil, let descriptor = try NamedPipe.openForReading(url, interrupt: interrupt) {
            pipeDescriptor = descriptor
            openURL = "pipe:\(descriptor.raw)"
        }
        // On failure avformat_open_input frees the context and sets it to NULL.
        try FFmpegError.check(avformat_open_input(&context, openURL, inputFormat, &dictionary.pointer),
                              "avformat_open_input(\(url))")
        let unused = dictionary.remainingKeys
        if !unused.isEmpty {
            throw FFmpegError(call: "avformat_open_input(\(url))",
                              message: "unknown option \(unused.map { "'\($0)'" }.joined(separator: ", ")) for this input")
        }
        if probeStreams {
            try FFmpegError.check(avformat_find_stream_info(context, nil), "avformat_find_stream_info(\(url))")
        }
        streams = (0..<Int(allocated.pointee.nb_streams)).map { StreamInfo(allocated.pointee.streams[$0]!) }
    }

    deinit {
        avformat_close_input(&context)
    }

    var formatContext: UnsafeMutablePointer<AVFormatContext> { context! }

    func stream(at index: Int) -> UnsafeMutablePointer<AVStream> { formatContext.pointee.streams[index]! }

    /// The stream of a type FFmpeg considers best. Attached pictures (cover art) are not video: a file
    /// whose only picture is its cover art has no video stream.
    public func bestStream(of type: MediaType) -> StreamInfo? {
        let avType: AVMediaType = type == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        let index = av_find_best_stream(formatContext, avType, -1, -1, nil, 0)
        guard index >= 0 else { return nil }
        if !streams[Int(index)].isAttachedPicture { return streams[Int(index)] }
        return streams.first { $0.mediaType == type && !$0.isAttachedPicture }
    }

    /// The first attached picture (cover art), if the file has one.
    public var attachedPicture: StreamInfo? { streams.first { $0.isAttachedPicture } }

    /// Container duration in seconds, when known.
    public var durationSeconds: Double? {
        let duration = formatContext.pointee.duration
        return duration == Timestamp.noValue || duration <= 0 ? nil : Double(duration) / Double(AV_TIME_BASE)
    }

    /// Where the earliest stream starts, in microseconds (AV_TIME_BASE), when the container says.
    public var startTime: Timestamp? {
        let start = formatContext.pointee.start_time
        return start == Timestamp.noValue ? nil : Timestamp(value: start, timeBase: Rational(1, Int32(AV_TIME_BASE)))
    }

    /// Whether the format's timestamps may jump (MPEG-TS and PS: joined recordings, broadcast splices).
    public var timestampsMayJump: Bool { formatContext.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0 }

    public var formatName: String { String(cString: formatContext.pointee.iformat.pointee.name) }

    /// Reads the next packet into `packet` (which is unreferenced first).
    public func read(into packet: Packet) throws -> ReadResult {
        packet.unref()
        let result = av_read_frame(formatContext, packet.pointer)
        if result >= 0 { return .packet }
        if result == reel_averror_eof() { return .endOfFile }
        if result == reel_averror_eagain() { return .tryAgain }
        throw FFmpegError(code: result, call: "av_read_frame(\(url))")
    }

    /// Seeks so that the next packets of `streamIndex` start at the keyframe at or before `timestamp`.
    public func seek(streamIndex: Int, toKeyframeBefore timestamp: Int64) throws {
        try FFmpegError.check(
            avformat_seek_file(formatContext, Int32(streamIndex), Int64.min, timestamp, timestamp, 0),
            "avformat_seek_file(\(url))")
    }
}
