import CFFmpeg

/// A decoder for one stream of an InputContext: the one owner of its AVCodecContext.
public final class Decoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    public let stream: StreamInfo

    public init(input: InputContext, streamIndex: Int, threads: Int = 0) throws {
        let avStream = input.stream(at: streamIndex)
        let parameters = avStream.pointee.codecpar!
        stream = input.streams[streamIndex]
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(call: "avcodec_find_decoder",
                              message: "no decoder for \(stream.codecName) in stream \(streamIndex) of \(input.url)")
        }
        context = avcodec_alloc_context3(codec)
        guard let context else { throw FFmpegError(call: "avcodec_alloc_context3", message: "out of memory") }
        try FFmpegError.check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = avStream.pointee.time_base
        context.pointee.thread_count = Int32(threads)
        try FFmpegError.check(avcodec_open2(context, codec, nil), "avcodec_open2(decoder \(stream.codecName))")
    }

    deinit { avcodec_free_context(&context) }

    /// Sends a packet, or `nil` to start draining.
    public func send(_ packet: Packet?) throws -> SendResult {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == reel_averror_eagain() { return .outputFull }
        if result == reel_averror_eof() && packet == nil { return .accepted }
        try FFmpegError.check(result, "avcodec_send_packet(\(stream.codecName))")
        return .accepted
    }

    public func receive(into frame: Frame) throws -> ReceiveResult {
        frame.unref()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result >= 0 {
            // As players (av_guess_sample_aspect_ratio): the container's pixel aspect wins over the codec's.
            if let containerAspect = stream.containerSampleAspectRatio { frame.sampleAspectRatio = containerAspect }
            return .received
        }
        if result == reel_averror_eagain() { return .needsInput }
        if result == reel_averror_eof() { return .endOfStream }
        throw FFmpegError(code: result, call: "avcodec_receive_frame(\(stream.codecName))")
    }

    /// Forgets buffered state after a seek.
    public func flushBuffers() { avcodec_flush_buffers(context) }
}
