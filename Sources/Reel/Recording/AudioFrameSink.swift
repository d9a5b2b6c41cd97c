import FFmpegCore

/// Resamples decoded audio to the encoder's format and queues it in blocks of the encoder's frame size.
/// Block times follow the sample count from the first sample on, so audio never drifts from its own clock.
final class AudioFrameSink: FrameSink {
    let mediaType = MediaType.audio
    private let buffer: CaptureBuffer
    private let resampler: Resampler
    private let fifo: SampleFIFO
    private let blockSize: Int
    private let sampleRate: Int
    private let waitsForEncoder: Bool
    private let statistics: ReaderStatistics
    private var firstSample: Int64? = nil
    private var samplesQueued: Int64 = 0
    /// Samples a second past the duration limit: audio time follows the sample count (as in the encoder),
    /// not device timestamps, which run ahead of the samples when a reader falls behind.
    private let sampleLimit: Int64?
    private(set) var isSatisfied = false

    init(buffer: CaptureBuffer, sampleRate: Int, channels: Int, blockSize: Int, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil) {
        self.buffer = buffer
        self.sampleLimit = maxDuration.map { Int64(($0 + 1) * Double(sampleRate)) }
        self.resampler = Resampler(outputRate: sampleRate, outputChannels: channels)
        self.fifo = SampleFIFO(format: .floatPlanar, channels: channels)
        self.blockSize = blockSize
        self.sampleRate = sampleRate
        self.waitsForEncoder = waitsForEncoder
        self.statistics = statistics
    }

    func consume(_ frame: Frame, at time: Timestamp) throws {
        if let sampleLimit, samplesQueued > sampleLimit {
            isSatisfied = true
            return
        }
        if firstSample == nil {
            firstSample = time.rescaled(to: Rational(1, Int32(sampleRate))).value
        }
        try resampler.convert(frame, into: fifo)
        try queueBlocks(includingPartial: false)
    }

    func finish() throws {
        guard firstSample != nil else { return }
        try resampler.convert(nil, into: fifo)
        try queueBlocks(includingPartial: true)
    }

    private func queueBlocks(includingPartial: Bool) throws {
        while fifo.count >= blockSize || (includingPartial && fifo.count > 0) {
            let count = min(blockSize, fifo.count)
            let time = Timestamp(value: firstSample! + samplesQueued, timeBase: Rational(1, Int32(sampleRate)))
            samplesQueued += Int64(count)
            let target: Frame
            switch buffer.takeFreeFrame(.audio, wait: waitsForEncoder) {
            case .frame(let frame): target = frame
            case .closed:
                fifo.drain(fifo.count)
                return
            case .noneFree:
                // Dropped audio leaves a gap in block times; the encoder fills it with silence to stay in sync.
                statistics.countDropped()
                fifo.drain(count)
                continue
            }
            if !target.hasBuffers || target.sampleCount < blockSize {
                try target.allocateAudio(sampleCount: blockSize, format: .floatPlanar, channels: fifo.channels,
                                         sampleRate: sampleRate)
            }
            try fifo.read(into: target, sampleCount: count)
            statistics.countDelivered()
            buffer.push(.audio, CapturedItem(frame: target, time: time))
        }
    }
}
