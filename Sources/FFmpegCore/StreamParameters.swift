import CFFmpeg

/// A copy of an encoder's stream description (AVCodecParameters: codec, size, extradata ...) and its time
/// base, taken on the thread that owns the encoder, for a muxer opened later on another thread (a live push
/// that reconnects) without reading the encoder while it encodes. The one owner of its AVCodecParameters;
/// never changed after it is made.
public final class StreamParameters: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    public let timeBase: Rational

    public init(of encoder: Encoder) throws {
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
        timeBase = encoder.timeBase
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&owned)
    }
}
