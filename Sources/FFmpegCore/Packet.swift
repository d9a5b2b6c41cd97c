import CFFmpeg

/// One owned AVPacket, allocated once and reused: `unref()` between uses, never reallocated per packet.
/// A packet belongs to one thread at a time; handing it over through a queue transfers that ownership.
public final class Packet: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    public func unref() { av_packet_unref(pointer) }

    /// Moves the payload of `other` into this packet, leaving `other` empty (no data copy).
    public func moveReference(from other: Packet) {
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, other.pointer)
    }

    /// Makes this packet another reference to `other`'s payload (reference-counted: no data copy) with its
    /// timestamps and flags; `other` is left as it was. For handing one encoded packet to several muxers.
    public func reference(_ other: Packet) throws {
        av_packet_unref(pointer)
        let result = av_packet_ref(pointer, other.pointer)
        guard result >= 0 else { throw FFmpegError(code: result, call: "av_packet_ref") }
    }

    /// Points the (empty) packet at caller-owned bytes without taking them: for handing a muxer a payload
    /// it will not keep. `unref()` before the bytes go away.
    public func borrow(_ bytes: UnsafeMutablePointer<UInt8>, size: Int) {
        av_packet_unref(pointer)
        pointer.pointee.data = bytes
        pointer.pointee.size = Int32(size)
    }

    /// Replaces the payload with a copy of `bytes` (in a buffer of the packet's own, padded as decoders
    /// require), keeping the timestamps, flags and side data.
    public func replacePayload(with bytes: [UInt8]) throws {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let buffer = av_buffer_alloc(bytes.count + padding) else {
            throw FFmpegError(call: "av_buffer_alloc", message: "out of memory")
        }
        let data = buffer.pointee.data!
        if !bytes.isEmpty { bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: bytes.count) } }
        (data + bytes.count).initialize(repeating: 0, count: padding)
        av_buffer_unref(&pointer.pointee.buf)
        pointer.pointee.buf = buffer
        pointer.pointee.data = data
        pointer.pointee.size = Int32(bytes.count)
    }

    public func setKeyframe(_ isKeyframe: Bool) {
        if isKeyframe { pointer.pointee.flags |= AV_PKT_FLAG_KEY } else { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
    }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    public var size: Int { Int(pointer.pointee.size) }
    public var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }
    public var dts: Int64 {
        get { pointer.pointee.dts }
        set { pointer.pointee.dts = newValue }
    }
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    /// Byte offset of the packet in its file, when the demuxer knows it (-1 otherwise).
    public var position: Int64 { pointer.pointee.pos }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// No other picture refers to this one (AV_PKT_FLAG_DISPOSABLE: x265's non-reference B-frames); the mov
    /// muxer notes it in an sdtp box.
    public var isDisposable: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISPOSABLE != 0 }
    public var isEmpty: Bool { pointer.pointee.data == nil && pointer.pointee.side_data_elems == 0 }

    /// The payload bytes (a copy), for writing an encoded still to a file.
    public var data: [UInt8] {
        guard let bytes = pointer.pointee.data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// The payload, read in place (no copy); valid only inside `body`.
    public func withPayload<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: pointer.pointee.data, count: pointer.pointee.data == nil ? 0 : size))
    }

    public func rescaleTimestamps(from source: Rational, to destination: Rational) {
        av_packet_rescale_ts(pointer, source.av, destination.av)
    }
}
