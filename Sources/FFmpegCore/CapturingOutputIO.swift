import CFFmpeg

/// A seekable AVIOContext that writes nowhere: a muxer writing through it only moves a position, which the
/// owner can also move between packets. Bytes written at or past `captureStart` are kept (overwrites
/// included), so a muxer's trailer can be taken out as bytes. Nothing is copied before `captureStart`.
///
/// Used to let FFmpeg's mov muxer compute a complete sample table for samples that another muxer has
/// already placed in a real file (see MovieIndexBuilder).
public final class CapturingOutputIO {
    let context: UnsafeMutablePointer<AVIOContext>
    private var cursor: Int64 = 0
    private var end: Int64 = 0
    /// Where keeping bytes starts; nil keeps nothing.
    public var captureStart: Int64? {
        didSet { captured.removeAll(keepingCapacity: true) }
    }
    public private(set) var captured: [UInt8] = []

    private static let bufferSize: Int32 = 32 * 1024

    public init() {
        guard let buffer = av_malloc(Int(CapturingOutputIO.bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
            fatalError("av_malloc: out of memory")
        }
        // The opaque pointer is unretained: this object owns the context and outlives it.
        var made: UnsafeMutablePointer<AVIOContext>? = nil
        made = avio_alloc_context(buffer, CapturingOutputIO.bufferSize, 1, nil, nil, { opaque, bytes, count in
            Unmanaged<CapturingOutputIO>.fromOpaque(opaque!).takeUnretainedValue().receive(bytes, Int(count))
            return count
        }, { opaque, offset, whence in
            Unmanaged<CapturingOutputIO>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
        })
        guard let made else { fatalError("avio_alloc_context: out of memory") }
        context = made
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        // Large writes (sample payloads) go straight to `receive` instead of through the buffer.
        context.pointee.direct = 1
    }

    deinit {
        av_freep(&context.pointee.buffer)
        var pointer: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&pointer)
    }

    public var position: Int64 { avio_tell(context) }

    public func flush() { avio_flush(context) }

    private func receive(_ bytes: UnsafeMutablePointer<UInt8>?, _ count: Int) {
        defer {
            cursor += Int64(count)
            end = max(end, cursor)
        }
        guard let start = captureStart, let bytes, cursor + Int64(count) > start else { return }
        let skip = Int(max(0, start - cursor))
        let at = Int(cursor - start) + skip
        let kept = UnsafeBufferPointer(start: bytes + skip, count: count - skip)
        if at + kept.count > captured.count { captured.append(contentsOf: repeatElement(0, count: at + kept.count - captured.count)) }
        captured.replaceSubrange(at ..< at + kept.count, with: kept)
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        switch whence & ~AVSEEK_FORCE {
        case AVSEEK_SIZE: return end
        case SEEK_SET: cursor = offset
        case SEEK_CUR: cursor += offset
        case SEEK_END: cursor = end + offset
        default: return Int64(reel_averror(EINVAL))
        }
        return cursor
    }
}
