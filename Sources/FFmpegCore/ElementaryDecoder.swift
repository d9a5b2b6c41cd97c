import CFFmpeg

/// A decoder for a codec's packets that come without a container (a camera's MJPEG or H.264 buffers): the one
/// owner of its AVCodecContext. Single-threaded, so each packet's picture comes out at once.
public final class ElementaryDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let packet = Packet()
    public let codecName: String

    /// `codecName` as FFmpeg names its decoder ("mjpeg", "h264").
    public init(codecName: String) throws {
        guard let codec = avcodec_find_decoder_by_name(codecName) else {
            throw FFmpegError(call: "avcodec_find_decoder_by_name", message: "this FFmpeg has no \(codecName) decoder")
        }
        self.codecName = codecName
        context = avcodec_alloc_context3(codec)
        guard let context else { throw FFmpegError(call: "avcodec_alloc_context3", message: "out of memory") }
        context.pointee.thread_count = 1
        try FFmpegError.check(avcodec_open2(context, codec, nil), "avcodec_open2(decoder \(codecName))")
    }

    deinit { avcodec_free_context(&context) }

    /// Decodes the bytes of one packet (borrowed: the decoder copies what it keeps) into `frame`, stamped
    /// `pts`. False when the packet gave no picture (a decoder that needs more, or damaged data).
    public func decode(_ bytes: UnsafeRawPointer, count: Int, pts: Int64, into frame: Frame) throws -> Bool {
        packet.borrow(UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self)), size: count)
        packet.pointer.pointee.pts = pts
        packet.pointer.pointee.dts = pts
        defer { packet.unref() }
        let sent = avcodec_send_packet(context, packet.pointer)
        if sent < 0 && sent != reel_averror_eagain() { return false }
        frame.unref()
        let received = avcodec_receive_frame(context, frame.pointer)
        if received == reel_averror_eagain() || received == reel_averror_eof() { return false }
        try FFmpegError.check(received, "avcodec_receive_frame(\(codecName))")
        return true
    }
}
