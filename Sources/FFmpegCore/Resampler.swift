import CFFmpeg

/// Converts audio to one rate, channel count and sample format with swresample, appending the result to a
/// SampleFIFO. The one owner of its SwrContext; it re-initializes itself if the input format changes.
public final class Resampler {
    private var context: OpaquePointer?
    private var inputShape: (rate: Int, channels: Int, format: SampleFormat) = (0, 0, SampleFormat(AV_SAMPLE_FMT_NONE))
    private let scratch = Frame()
    private var scratchCapacity = 0
    public let outputRate: Int
    public let outputChannels: Int
    public let outputFormat: SampleFormat

    public init(outputRate: Int, outputChannels: Int, outputFormat: SampleFormat = .floatPlanar) {
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        self.outputFormat = outputFormat
    }

    deinit { swr_free(&context) }

    /// Converts `frame` (or, with nil, flushes what swresample still holds) into `fifo`.
    /// Returns the number of output samples appended.
    @discardableResult
    public func convert(_ frame: Frame?, into fifo: SampleFIFO) throws -> Int {
        if let frame { try prepare(for: frame) }
        guard context != nil else { return 0 }
        let inputCount = frame?.sampleCount ?? 0
        let capacity = Int(swr_get_out_samples(context, Int32(inputCount)))
        guard capacity > 0 else { return 0 }
        try ensureScratch(capacity: capacity)
        let converted: Int32 = withUnsafeMutablePointer(to: &scratch.pointer.pointee.data) { outputTuple in
            outputTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { output in
                guard let frame else { return swr_convert(context, output, Int32(capacity), nil, 0) }
                return frame.withPlanes { input, _ in
                    swr_convert(context, output, Int32(capacity), input, Int32(inputCount))
                }
            }
        }
        try FFmpegError.check(converted, "swr_convert")
        guard converted > 0 else { return 0 }
        try withUnsafeMutablePointer(to: &scratch.pointer.pointee.data) { tuple in
            try tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) {
                try fifo.write(planes: $0, sampleCount: Int(converted))
            }
        }
        return Int(converted)
    }

    /// Output samples swresample still holds from input already given (its filter's delay): the next
    /// output sample is this many samples older than the next input sample.
    public var delay: Int { context.map { Int(swr_get_delay($0, Int64(outputRate))) } ?? 0 }

    /// Stretches or squeezes the output by `sampleDelta` samples over the next `distance` samples, so an
    /// audio clock that runs fast or slow against the session clock is brought back in line.
    public func compensate(sampleDelta: Int, distance: Int) throws {
        guard context != nil else { return }
        try FFmpegError.check(swr_set_compensation(context, Int32(sampleDelta), Int32(distance)), "swr_set_compensation")
    }

    private func prepare(for frame: Frame) throws {
        let shape = (frame.sampleRate, frame.channelCount, frame.sampleFormat)
        if context != nil && shape == inputShape { return }
        inputShape = shape
        swr_free(&context)
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(outputChannels))
        defer { av_channel_layout_uninit(&outputLayout) }
        var inputLayout = AVChannelLayout()
        if frame.pointer.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, Int32(frame.channelCount))
        } else {
            // Read through a copy of the field: the frame may be read by other outputs at the same time.
            let layout = frame.pointer.pointee.ch_layout
            try FFmpegError.check(withUnsafePointer(to: layout) { av_channel_layout_copy(&inputLayout, $0) },
                                  "av_channel_layout_copy")
        }
        defer { av_channel_layout_uninit(&inputLayout) }
        try FFmpegError.check(
            swr_alloc_set_opts2(&context, &outputLayout, outputFormat.rawValue, Int32(outputRate),
                                &inputLayout, frame.sampleFormat.rawValue, Int32(frame.sampleRate), 0, nil),
            "swr_alloc_set_opts2")
        try FFmpegError.check(swr_init(context), "swr_init")
    }

    private func ensureScratch(capacity: Int) throws {
        if capacity <= scratchCapacity { return }
        // Grow with headroom so steady-state conversion never reallocates.
        scratchCapacity = max(capacity, 4096)
        try scratch.allocateAudio(sampleCount: scratchCapacity, format: outputFormat, channels: outputChannels,
                                  sampleRate: outputRate)
    }
}
