import CFFmpeg
import SystemSupport

/// An encoder: the one owner of its AVCodecContext. Opened from settings, fed frames, drained of packets.
public final class Encoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    public let mediaType: MediaType
    /// The encoder's name (libx264, libx265, aac); `codecIdentifier` names the codec it writes.
    public let codecName: String

    public init(video settings: VideoEncoderSettings, globalHeader: Bool) throws {
        mediaType = .video
        codecName = settings.codecName
        let (codec, context) = try Encoder.allocate(settings.codecName)
        self.context = context
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = settings.pixelFormat.rawValue
        context.pointee.time_base = settings.timeBase.av
        context.pointee.framerate = settings.frameRate.av
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.color_primaries = settings.colour.primaries.rawValue
        context.pointee.color_trc = settings.colour.transfer.rawValue
        context.pointee.colorspace = settings.colour.matrix.rawValue
        context.pointee.color_range = settings.colour.range.rawValue
        context.pointee.gop_size = Int32(settings.keyframeInterval)
        context.pointee.thread_count = Int32(settings.threads)
        if let bitRate = settings.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if let maxRate = settings.maxRate { context.pointee.rc_max_rate = Int64(maxRate) }
        if let bufferSize = settings.bufferSize { context.pointee.rc_buffer_size = Int32(bufferSize) }
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec, privateOptions: settings.privateOptions)
    }

    public init(audio settings: AudioEncoderSettings, globalHeader: Bool) throws {
        mediaType = .audio
        codecName = settings.codecName
        let (codec, context) = try Encoder.allocate(settings.codecName)
        self.context = context
        context.pointee.sample_fmt = settings.sampleFormat.rawValue
        context.pointee.sample_rate = Int32(settings.sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
        context.pointee.bit_rate = Int64(settings.bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec, privateOptions: [])
    }

    /// An encoder configured by `configure` (for codecs without a settings type of their own).
    init(codecName: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        let (codec, context) = try Encoder.allocate(codecName)
        self.context = context
        mediaType = MediaType(codec.pointee.type)
        self.codecName = codecName
        configure(context)
        try open(codec, privateOptions: [])
    }

    deinit {
        avcodec_free_context(&context)
        // A video encoder's pictures and lookahead (x264, x265: tens of MB at 720p) were allocated on its
        // threads' arenas, which glibc keeps resident: given back, so a process that records movie after
        // movie (reel serve's takes) stays flat whichever thread let go of the encoder last.
        if mediaType == .video { ProcessMemory.releaseFree() }
    }

    /// Whether this FFmpeg has the encoder (libx265 is optional in FFmpeg builds; Debian's has it).
    public static func isAvailable(_ name: String) -> Bool {
        return avcodec_find_encoder_by_name(name) != nil
    }

    private static func allocate(_ name: String) throws -> (UnsafePointer<AVCodec>, UnsafeMutablePointer<AVCodecContext>) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(call: "avcodec_find_encoder_by_name",
                              message: "FFmpeg on this machine has no '\(name)' encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(call: "avcodec_alloc_context3", message: "out of memory")
        }
        return (codec, context)
    }

    private func open(_ codec: UnsafePointer<AVCodec>, privateOptions: [PrivateOption]) throws {
        let options = OptionDictionary(privateOptions.map { ($0.key, $0.value) })
        try FFmpegError.check(avcodec_open2(context, codec, &options.pointer), "avcodec_open2(\(codecName))")
        let unused = options.remainingKeys
        if !unused.isEmpty {
            throw FFmpegError(call: "avcodec_open2(\(codecName))",
                              message: "unknown encoder option \(unused.joined(separator: ", "))")
        }
    }

    var codecContext: UnsafeMutablePointer<AVCodecContext> { context! }

    /// The bit rate the encoder was asked for (0 for quality-based rate control).
    public var bitRate: Int64 { context!.pointee.bit_rate }

    public var timeBase: Rational { Rational(context!.pointee.time_base) }
    /// Picture size of a video encoder (0 for audio).
    public var width: Int { Int(context!.pointee.width) }
    public var height: Int { Int(context!.pointee.height) }
    /// Sample rate and channel count of an audio encoder (0 for video).
    public var sampleRate: Int { Int(context!.pointee.sample_rate) }
    public var channelCount: Int { Int(context!.pointee.ch_layout.nb_channels) }
    /// Samples per audio frame the encoder requires (1024 for AAC); 0 for video.
    public var frameSize: Int { Int(context!.pointee.frame_size) }
    /// Pictures the encoder reorders (B-frames: a packet comes out that many pictures late); 0 for none.
    public var reorderedPictures: Int { Int(context!.pointee.has_b_frames) }
    /// Samples of encoder delay at the start (AAC's priming); packet times are shifted back by it.
    public var initialPadding: Int { Int(context!.pointee.initial_padding) }
    public var extradataSize: Int { Int(context!.pointee.extradata_size) }
    /// The codec headers the encoder put in extradata (global header): for x264 and x265 their parameter
    /// sets in Annex B form (start codes), which a muxer turns into its own record (avcC, hvcC).
    public var extradata: [UInt8] {
        guard let bytes = context!.pointee.extradata, extradataSize > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: extradataSize))
    }
    /// FFmpeg's name of the codec written (h264, hevc, aac), as `StreamInfo.codecName` reads it back.
    public var codecIdentifier: String { String(cString: avcodec_get_name(context!.pointee.codec_id)) }

    /// Sends a frame, or `nil` to flush.
    public func send(_ frame: Frame?) throws -> SendResult {
        let result = avcodec_send_frame(context, frame?.pointer)
        if result == reel_averror_eagain() { return .outputFull }
        try FFmpegError.check(result, "avcodec_send_frame(\(codecName))")
        return .accepted
    }

    public func receive(into packet: Packet) throws -> ReceiveResult {
        packet.unref()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result >= 0 { return .received }
        if result == reel_averror_eagain() { return .needsInput }
        if result == reel_averror_eof() { return .endOfStream }
        throw FFmpegError(code: result, call: "avcodec_receive_packet(\(codecName))")
    }
}
