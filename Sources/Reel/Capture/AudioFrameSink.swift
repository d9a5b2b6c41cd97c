import FFmpegCore

/// Resamples decoded audio to the encoder's format and queues it in blocks of the encoder's frame size.
/// Block times follow the sample count from the first sample on, so audio never drifts from its own clock.
///
/// A live device's own clock can run fast or slow against the system clock that times the pictures (a
/// "48 kHz" card that delivers 48,048 samples a second puts audio 3.6 s ahead of video after an hour). With
/// `compensatesClockDrift`, the sink compares the samples it has produced with the device's timestamps
/// (system time of capture) and has swresample stretch or squeeze the audio by up to 2 % until they agree:
/// the error stays within a few milliseconds, inaudibly.
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
    private let compensatesClockDrift: Bool
    /// Samples produced ahead of the device's timestamps (negative: behind), smoothed against their jitter.
    private var smoothedDrift: Double = 0
    private var compensating = false
    /// A device's first second of timestamps is not compared: a PulseAudio source delivers its start in bursts
    /// whose stamps run ahead of the samples and then behind them (by 0.34 s, then 26 ms), which was taken for
    /// drift and corrected with silence and a 2 % lower pitch (a 1000 Hz tone recorded at 980 Hz). A clock's
    /// drift is a slope: it shows after that second as well, measured from the offset the clocks have then.
    private static let settlingSeconds = 1.0
    /// Seconds of drift that start a correction (it goes on until 2 ms are left). A PulseAudio source's
    /// stamps wander by up to 26 ms in its first seconds as its latency settles; the 10 ms this was before
    /// made that a 1-2 % pitch change. 40 ms is GStreamer's alignment threshold for audio sources.
    private static let driftThreshold = 0.04
    private var settledOffset: Int64? = nil
    /// Largest correction: 2 % of the samples, over this many seconds of audio at a time.
    private static let compensationSeconds = 2.0
    private static let maximumCorrection = 0.02

    init(buffer: CaptureBuffer, sampleRate: Int, channels: Int, blockSize: Int, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil, compensatesClockDrift: Bool = false) {
        self.buffer = buffer
        self.compensatesClockDrift = compensatesClockDrift
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
        let deviceSample = time.rescaled(to: Rational(1, Int32(sampleRate))).value
        if firstSample == nil { firstSample = deviceSample }
        if compensatesClockDrift {
            try compensateDrift(deviceSample: deviceSample, frameSamples: frame.sampleCount)
        } else {
            try followTimestamps(deviceSample: deviceSample)
        }
        try resampler.convert(frame, into: fifo)
        try queueBlocks(includingPartial: false)
    }

    /// Small errors (a clock running fast or slow) are corrected softly by resampling; a jump of more than
    /// 0.1 s (samples lost in an overrun, a device that restarted) at once, with silence or by dropping
    /// samples, as swresample's own async mode does.
    private func compensateDrift(deviceSample: Int64, frameSamples: Int) throws {
        let rate = Double(sampleRate)
        let produced = samplesQueued + Int64(fifo.count)
        let elapsed = deviceSample - firstSample!
        // The clocks are compared from the end of the settling second on, against the offset they had then.
        guard produced >= Int64(rate * AudioFrameSink.settlingSeconds) else { return }
        if settledOffset == nil { settledOffset = produced - elapsed }
        let drift = Double(produced - elapsed - settledOffset!)
        // Smoothed over about half a second, against the jitter of device timestamps.
        smoothedDrift += (drift - smoothedDrift) * min(1, Double(frameSamples) / (0.5 * rate))
        if abs(smoothedDrift) > rate * 0.1 {
            if drift < 0 {
                try fifo.appendSilence(Int(-drift))
            } else {
                fifo.drain(min(fifo.count, Int(drift)))
            }
            smoothedDrift = 0
            return
        }
        if abs(smoothedDrift) > rate * AudioFrameSink.driftThreshold || (compensating && abs(smoothedDrift) > rate * 0.002) {
            let distance = Int(rate * AudioFrameSink.compensationSeconds)
            let limit = Double(distance) * AudioFrameSink.maximumCorrection
            try resampler.compensate(sampleDelta: Int(max(-limit, min(limit, -smoothedDrift))), distance: distance)
            compensating = true
        } else if compensating {
            try resampler.compensate(sampleDelta: 0, distance: 0)
            compensating = false
        }
    }

    /// A file's audio is placed by its timestamps: where they leave a hole (or step back) by more than
    /// `placementTolerance`, what is queued goes out and the blocks that follow carry their own time; the
    /// encoder fills the hole with silence (or skips the overlap), so every later sound stays in sync.
    private func followTimestamps(deviceSample: Int64) throws {
        // Wrapping arithmetic: a file's timestamps can be anything, and a wrong time is no reason to crash.
        let produced = firstSample! &+ samplesQueued &+ Int64(fifo.count)
        guard (deviceSample &- produced).magnitude > UInt64(sampleRate) / UInt64(AudioFrameSink.placementToleranceDivisor) else { return }
        try queueBlocks(includingPartial: true)
        firstSample = deviceSample &- samplesQueued
    }

    /// Timestamps of file audio are trusted past 1/50 s (20 ms): below, container rounding (MKV's
    /// milliseconds) would make needless cuts.
    private static let placementToleranceDivisor: Int64 = 50

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
            let slot: CaptureSlot
            switch buffer.takeFreeSlot(.audio, wait: waitsForEncoder) {
            case .slot(let free): slot = free
            case .closed:
                fifo.drain(fifo.count)
                return
            case .noneFree:
                // Dropped audio leaves a gap in block times; the encoder fills it with silence to stay in sync.
                statistics.countDropped()
                fifo.drain(count)
                continue
            }
            let target = slot.frames[0]
            if !target.hasBuffers || target.sampleCount < blockSize {
                try target.allocateAudio(sampleCount: blockSize, format: .floatPlanar, channels: fifo.channels,
                                         sampleRate: sampleRate)
            }
            try fifo.read(into: target, sampleCount: count)
            statistics.countDelivered()
            buffer.push(.audio, CapturedItem(slot: slot, time: time))
        }
    }
}
