import CFFmpeg

/// A copy of an encoder's stream description (AVCodecParameters: codec, size, extradata ...) and its time
/// base, taken on the thread that owns the encoder, for a muxer opened later on another thread (a live push
/// that reconnects) without reading the encoder while it encodes; or of an input stream's, for its packets
/// copied into a movie (a trim). The one owner of its AVCodecParameters;
/// never changed after it is made.
public final class StreamParameters: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    public let timeBase: Rational

    public convenience init(of encoder: Encoder) throws {
        try self.init(of: encoder, timeBase: encoder.timeBase)
    }

    /// `timeBase`: the clock of the packets the muxer will be given, when they are not the encoder's (a trim's
    /// re-encoded pictures carry their input's times).
    public init(of encoder: Encoder, timeBase: Rational) throws {
        guard let made = avcodec_parameters_alloc() else {
            throw FFmpegError(call: "avcodec_parameters_alloc", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = made
        let result = avcodec_parameters_from_context(made, encoder.codecContext)
        guard result >= 0 else {
            avcodec_parameters_free(&owned)
            throw FFmpegError(code: result, call: "avcodec_parameters_from_context")
        }
        parameters = made
        self.timeBase = timeBase
    }

    /// A copy of an input stream's description and time base (packets copied from it keep its times).
    public init(copying streamIndex: Int, of input: InputContext) throws {
        guard let made = avcodec_parameters_alloc() else {
            throw FFmpegError(call: "avcodec_parameters_alloc", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = made
        let stream = input.stream(at: streamIndex)
        let result = avcodec_parameters_copy(made, stream.pointee.codecpar)
        guard result >= 0 else {
            avcodec_parameters_free(&owned)
            throw FFmpegError(code: result, call: "avcodec_parameters_copy")
        }
        parameters = made
        timeBase = Rational(stream.pointee.time_base)
    }

    public var mediaType: MediaType { MediaType(parameters.pointee.codec_type) }
    public var width: Int { Int(parameters.pointee.width) }
    public var height: Int { Int(parameters.pointee.height) }
    public var sampleRate: Int { Int(parameters.pointee.sample_rate) }
    public var channelCount: Int { Int(parameters.pointee.ch_layout.nb_channels) }
    public var bitRate: Int64 { parameters.pointee.bit_rate }
    /// FFmpeg's name of the codec (h264, hevc, aac).
    public var codecIdentifier: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }
    /// The codec headers (for x264 and x265 their parameter sets in Annex B form).
    public var extradata: [UInt8] {
        guard let bytes = parameters.pointee.extradata, parameters.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.pointee.extradata_size)))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&owned)
    }
}
