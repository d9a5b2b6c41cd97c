import CFFmpeg

/// One owned AVFrame. Frames are reused: pipelines keep a few and recycle them rather than allocating
/// per frame. A frame belongs to one thread at a time; a queue hand-over transfers that ownership.
public final class Frame: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    public func unref() { av_frame_unref(pointer) }

    /// Makes this frame reference the same buffers as `other` (no pixel copy).
    public func reference(_ other: Frame) throws {
        av_frame_unref(pointer)
        try FFmpegError.check(av_frame_ref(pointer, other.pointer), "av_frame_ref")
    }

    /// Allocates picture buffers for a video frame of the given shape (once, then reused).
    public func allocateVideo(width: Int, height: Int, pixelFormat: PixelFormat) throws {
        av_frame_unref(pointer)
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = pixelFormat.rawValue.rawValue
        try FFmpegError.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// Copies a raw picture laid out as a device delivers it (planes one after another, each line
    /// `bytesPerLine` long for the first plane) into this frame, allocated once for its shape.
    public func copyPicture(from bytes: UnsafeRawPointer, count: Int, width: Int, height: Int, pixelFormat: PixelFormat,
                            bytesPerLine: Int) throws {
        if !hasBuffers || self.width != width || self.height != height || self.pixelFormat != pixelFormat {
            try allocateVideo(width: width, height: height, pixelFormat: pixelFormat)
        }
        try makeWritable()
        var sourcePlanes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var sourceLines = [Int32](repeating: 0, count: 4)
        // The planes' offsets and line sizes for this layout with the device's first line size.
        let needed = av_image_fill_linesizes(&sourceLines, pixelFormat.rawValue, Int32(width))
        try FFmpegError.check(needed, "av_image_fill_linesizes")
        let scale = sourceLines[0] > 0 ? Double(bytesPerLine) / Double(sourceLines[0]) : 1
        for plane in 0..<4 where sourceLines[plane] > 0 { sourceLines[plane] = Int32((Double(sourceLines[plane]) * scale).rounded()) }
        let total = av_image_fill_pointers(&sourcePlanes, pixelFormat.rawValue, Int32(height),
                                           UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self)), sourceLines)
        guard total >= 0, Int(total) <= count else {
            throw FFmpegError(call: "av_image_fill_pointers", message: "a \(width)x\(height) \(pixelFormat) picture needs \(total) bytes, the buffer holds \(count)")
        }
        withUnsafeMutablePointer(to: &pointer.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { destination in
                withUnsafeMutablePointer(to: &pointer.pointee.linesize) { lines in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { destinationLines in
                        sourcePlanes.withUnsafeMutableBufferPointer { planes in
                            planes.baseAddress!.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 4) { source in
                                av_image_copy(destination, destinationLines, source, sourceLines, pixelFormat.rawValue,
                                              Int32(width), Int32(height))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Allocates sample buffers for an audio frame of the given shape.
    public func allocateAudio(sampleCount: Int, format: SampleFormat, channels: Int, sampleRate: Int) throws {
        av_frame_unref(pointer)
        pointer.pointee.nb_samples = Int32(sampleCount)
        pointer.pointee.format = format.rawValue.rawValue
        pointer.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&pointer.pointee.ch_layout, Int32(channels))
        try FFmpegError.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// The planes' data pointers and line sizes, read in place. Captured frames are shared read-only between
    /// output threads (a movie, a tier, the preview, a photo); `withUnsafePointer(to: &pointer.pointee.data)`
    /// would be a Swift modifying access to the shared frame, which ThreadSanitizer rightly reports, so this
    /// reaches the fields through their offsets instead. The pointers are mutable only because C signatures such
    /// as `swr_convert`'s ask for that; a reader of a shared frame must not write through them.
    public func withPlanes<Result>(_ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, UnsafeMutablePointer<Int32>) throws -> Result) rethrows -> Result {
        let base = UnsafeMutableRawPointer(pointer)
        let data = (base + MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let lines = (base + MemoryLayout<AVFrame>.offset(of: \AVFrame.linesize)!).assumingMemoryBound(to: Int32.self)
        return try body(data, lines)
    }

    /// One plane's first byte (nil when the frame has no such plane), read as `withPlanes` reads.
    func planeData(_ plane: Int) -> UnsafeMutablePointer<UInt8>? {
        withPlanes { data, _ in data[plane].map { UnsafeMutablePointer(mutating: $0) } }
    }

    /// One plane's line size in bytes, read as `withPlanes` reads.
    func planeStride(_ plane: Int) -> Int { withPlanes { _, lines in Int(lines[plane]) } }

    /// Ensures nobody else (an encoder still holding a reference) shares the buffers before writing into them.
    public func makeWritable() throws {
        try FFmpegError.check(av_frame_make_writable(pointer), "av_frame_make_writable")
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(AVPixelFormat(pointer.pointee.format)) }
    public var sampleFormat: SampleFormat { SampleFormat(AVSampleFormat(pointer.pointee.format)) }
    public var sampleCount: Int {
        get { Int(pointer.pointee.nb_samples) }
        set { pointer.pointee.nb_samples = Int32(newValue) }
    }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    public var hasBuffers: Bool { pointer.pointee.buf.0 != nil }

    public var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// How long the frame is shown, in its stream's time base, when the decoder knows it (0 otherwise).
    public var duration: Int64 { pointer.pointee.pkt_duration }

    /// The best timestamp the decoder knows for this frame (pts, else one it guessed).
    public var bestEffortTimestamp: Int64 { pointer.pointee.best_effort_timestamp }

    /// Per-frame quality (lambda) for fixed-quantizer encoders such as MJPEG.
    public var quality: Int32 {
        get { pointer.pointee.quality }
        set { pointer.pointee.quality = newValue }
    }

    /// The picture's colour tags as the decoder or filter set them (often unspecified: see `resolvedColour`).
    public var colour: ColourDescription {
        get {
            ColourDescription(primaries: ColourPrimaries(pointer.pointee.color_primaries),
                              transfer: TransferCurve(pointer.pointee.color_trc),
                              matrix: ColourMatrix(pointer.pointee.colorspace), range: ColourRange(pointer.pointee.color_range))
        }
        set {
            pointer.pointee.color_primaries = newValue.primaries.rawValue
            pointer.pointee.color_trc = newValue.transfer.rawValue
            pointer.pointee.colorspace = newValue.matrix.rawValue
            pointer.pointee.color_range = newValue.range.rawValue
        }
    }

    /// What the picture's numbers mean, with untagged parts filled in as players assume for its format and size.
    public var resolvedColour: ColourDescription { colour.resolved(for: pixelFormat, width: width, height: height) }

    /// The shape of one stored pixel as shown (64:45 for 16:9 PAL DV); 0/1 or 1/1 for square pixels.
    public var sampleAspectRatio: Rational {
        get { Rational(pointer.pointee.sample_aspect_ratio) }
        set { pointer.pointee.sample_aspect_ratio = newValue.av }
    }

    /// Takes `other`'s metadata (timestamps, colour, pixel aspect, side data), not its pixels.
    public func copyProperties(from other: Frame) throws {
        try FFmpegError.check(av_frame_copy_props(pointer, other.pointer), "av_frame_copy_props")
    }

    /// Marks the frame as a forced keyframe (or lets the encoder decide).
    public var forcesKeyframe: Bool {
        get { pointer.pointee.pict_type == AV_PICTURE_TYPE_I }
        set { pointer.pointee.pict_type = newValue ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
    }
}
