import CFFmpeg

/// A growable queue of audio samples in one format (AVAudioFifo): lets arbitrary-sized device frames be
/// cut into the fixed-size frames an encoder takes. The one owner of its AVAudioFifo.
public final class SampleFIFO {
    private let fifo: OpaquePointer
    public let format: SampleFormat
    public let channels: Int

    public init(format: SampleFormat, channels: Int, initialCapacity: Int = 8192) {
        self.format = format
        self.channels = channels
        guard let fifo = av_audio_fifo_alloc(format.rawValue, Int32(channels), Int32(initialCapacity)) else {
            fatalError("av_audio_fifo_alloc: out of memory")
        }
        self.fifo = fifo
    }

    deinit { av_audio_fifo_free(fifo) }

    public var count: Int { Int(av_audio_fifo_size(fifo)) }

    func write(planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>, sampleCount: Int) throws {
        let raw = UnsafeMutableRawPointer(mutating: planes).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let written = av_audio_fifo_write(fifo, raw, Int32(sampleCount))
        try FFmpegError.check(written, "av_audio_fifo_write")
    }

    /// Appends the samples of `frame` (which must be in this FIFO's format), skipping the first `offset`.
    public func append(_ frame: Frame, skipping offset: Int = 0) throws {
        try append([frame], skipping: offset)
    }

    /// Appends the samples of `frames` side by side (planar: their planes in order make this FIFO's channels,
    /// as several tracks of one block; all of one length), skipping the first `offset`.
    public func append(_ frames: [Frame], skipping offset: Int = 0) throws {
        guard let first = frames.first else { return }
        let count = first.sampleCount - offset
        guard count > 0 else { return }
        let bytesPerSample = Int(av_get_bytes_per_sample(format.rawValue))
        let planar = av_sample_fmt_is_planar(format.rawValue) != 0
        precondition(planar || frames.count == 1, "interleaved samples come in one frame")
        let skip = offset * bytesPerSample * (planar ? 1 : channels)
        var planes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: max(8, channels))
        var plane = 0
        for frame in frames {
            for own in 0..<(planar ? frame.channelCount : 1) where plane < planes.count {
                planes[plane] = frame.planeData(own).map { $0 + skip }
                plane += 1
            }
        }
        precondition(!planar || plane == channels, "the frames' channels must make this FIFO's")
        try planes.withUnsafeBufferPointer { try write(planes: $0.baseAddress!, sampleCount: count) }
    }

    /// Appends `sampleCount` samples of silence (to fill a gap where a device lost samples).
    public func appendSilence(_ sampleCount: Int) throws {
        guard sampleCount > 0 else { return }
        let bytesPerSample = Int(av_get_bytes_per_sample(format.rawValue))
        let planar = av_sample_fmt_is_planar(format.rawValue) != 0
        let bytes = sampleCount * bytesPerSample * (planar ? 1 : channels)
        let zeros = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: bytes)
        let planes = [UnsafeMutablePointer<UInt8>?](repeating: zeros, count: planar ? channels : 1)
        try planes.withUnsafeBufferPointer { try write(planes: $0.baseAddress!, sampleCount: sampleCount) }
    }

    /// Moves `sampleCount` samples (or fewer, if fewer are queued) into `frame`, which must hold buffers
    /// for at least that many. Returns how many were moved and sets the frame's sample count to it.
    @discardableResult
    public func read(into frame: Frame, sampleCount: Int) throws -> Int {
        try read(into: [frame], sampleCount: sampleCount)
    }

    /// Moves `sampleCount` samples (or fewer) into `frames` side by side (planar: each takes as many of this
    /// FIFO's channels as it has, in order), each holding buffers for at least that many. Returns how many
    /// were moved and sets each frame's sample count to it.
    @discardableResult
    public func read(into frames: [Frame], sampleCount: Int) throws -> Int {
        var planes = [UnsafeMutableRawPointer?](repeating: nil, count: max(8, channels))
        var plane = 0
        for frame in frames {
            try frame.makeWritable()
            let own = av_sample_fmt_is_planar(format.rawValue) != 0 ? frame.channelCount : 1
            for index in 0..<own where plane < planes.count {
                planes[plane] = frame.planeData(index).map { UnsafeMutableRawPointer($0) }
                plane += 1
            }
        }
        precondition(plane == (av_sample_fmt_is_planar(format.rawValue) != 0 ? channels : 1), "the frames' channels must make this FIFO's")
        let read = planes.withUnsafeMutableBufferPointer { av_audio_fifo_read(fifo, $0.baseAddress!, Int32(sampleCount)) }
        try FFmpegError.check(read, "av_audio_fifo_read")
        for frame in frames { frame.sampleCount = Int(read) }
        return Int(read)
    }

    /// Throws away the oldest `sampleCount` samples.
    public func drain(_ sampleCount: Int) { av_audio_fifo_drain(fifo, Int32(sampleCount)) }

    public func reset() { av_audio_fifo_reset(fifo) }

    /// Throws away every sample after the first `sampleCount` (the newest ones). AVAudioFifo drops only from
    /// the front, so the kept samples are copied out and written anew: for rare cuts (a pause), not per frame.
    public func keepFirst(_ sampleCount: Int) throws {
        guard sampleCount < count else { return }
        guard sampleCount > 0 else { return reset() }
        let planar = av_sample_fmt_is_planar(format.rawValue) != 0
        let bytes = sampleCount * Int(av_get_bytes_per_sample(format.rawValue)) * (planar ? 1 : channels)
        let buffers = (0..<(planar ? channels : 1)).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: bytes) }
        defer { for buffer in buffers { buffer.deallocate() } }
        var planes = buffers.map { UnsafeMutableRawPointer?($0) }
        let peeked = planes.withUnsafeMutableBufferPointer { av_audio_fifo_peek(fifo, $0.baseAddress!, Int32(sampleCount)) }
        try FFmpegError.check(peeked, "av_audio_fifo_peek")
        reset()
        let kept = buffers.map { UnsafeMutablePointer<UInt8>?($0) }
        try kept.withUnsafeBufferPointer { try write(planes: $0.baseAddress!, sampleCount: Int(peeked)) }
    }
}
