import FFmpegCore

/// Resamples decoded audio to the encoder's format and queues it in blocks of the encoder's frame size.
/// Block times follow the sample count from the first sample on, so audio never drifts from its own clock.
///
/// A live device's own clock can run fast or slow against the system clock that times the pictures: with
/// `compensatesClockDrift`, the sink follows the device's timestamps as ClockDriftCorrection says.
///
/// With `metersLevels`, the source's samples are metered as they come, before any conversion (a mono
/// microphone is one channel at its own level, not two upmixed 3 dB down): LevelMeter reads each frame in
/// place on this thread, and each update rides on the next block queued (`CapturedItem.levels`).
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
    /// Paused time moves the limit on (see PausedTime).
    private let pausedTime: PausedTime?
    private let compensatesClockDrift: Bool
    /// A live session with video: the limit counts from its first picture (the movie's start), not from
    /// this sink's first sample, and is not reached before there is one.
    private let limitFrom: FirstPictureTime?
    private var drift: ClockDriftCorrection
    private let metersLevels: Bool
    private var meter: LevelMeter?
    /// The newest update not yet handed on with a block.
    private var pendingLevels: AudioLevels?
    /// One of several inputs mixed: blocks go to the mix, not to the buffer.
    private let mixLane: AudioMixer.Lane?
    private let mixBlock = Frame()
    var endsStream: Bool { mixLane == nil }

    init(buffer: CaptureBuffer, sampleRate: Int, channels: Int, blockSize: Int, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil, compensatesClockDrift: Bool = false,
         pausedTime: PausedTime? = nil, limitFrom: FirstPictureTime? = nil, metersLevels: Bool = false,
         mixLane: AudioMixer.Lane? = nil) {
        self.buffer = buffer
        self.mixLane = mixLane
        self.metersLevels = metersLevels
        self.limitFrom = limitFrom
        self.pausedTime = pausedTime
        self.compensatesClockDrift = compensatesClockDrift
        self.drift = ClockDriftCorrection(sampleRate: sampleRate)
        self.sampleLimit = maxDuration.map { Int64(($0 + 1) * Double(sampleRate)) }
        self.resampler = Resampler(outputRate: sampleRate, outputChannels: channels)
        self.fifo = SampleFIFO(format: .floatPlanar, channels: channels)
        self.blockSize = blockSize
        self.sampleRate = sampleRate
        self.waitsForEncoder = waitsForEncoder
        self.statistics = statistics
    }

    func consume(_ frame: Frame, at time: Timestamp) throws {
        if let sampleLimit, let paused = pausedTime.map({ $0.allowance }) ?? 0, let counted = samplesCountedByLimit,
           counted > sampleLimit + paused * Int64(sampleRate) / 1_000_000 {
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
        if metersLevels { measure(frame, at: time) }
        try resampler.convert(frame, into: fifo)
        try queueBlocks(includingPartial: false)
    }

    private func measure(_ frame: Frame, at time: Timestamp) {
        if meter?.sampleRate != frame.sampleRate || meter?.channelCount != frame.channelCount {
            // The first frame, or a source that changed its rate or layout: a meter of its own.
            meter = LevelMeter(sampleRate: frame.sampleRate, channelCount: frame.channelCount)
        }
        let seconds = Double(time.rescaled(to: sessionTimeBase).value) / 1_000_000
        let updates = meter?.add(count: frame.sampleCount, at: seconds) { channel, range in
            frame.sampleStatistics(channel: channel, range: range)
        } ?? []
        if let newest = updates.last { pendingLevels = newest }
    }

    /// The samples the duration limit counts: those queued, or with `limitFrom` those since the first
    /// picture (nil until there is one).
    private var samplesCountedByLimit: Int64? {
        guard let limitFrom else { return samplesQueued }
        guard let picture = limitFrom.sample(at: sampleRate), let firstSample else { return nil }
        return firstSample + samplesQueued - picture
    }

    /// Follows the device's clock (see ClockDriftCorrection): swresample squeezes or stretches the audio,
    /// or a jump is made up at once.
    private func compensateDrift(deviceSample: Int64, frameSamples: Int) throws {
        let produced = samplesQueued + Int64(fifo.count)
        switch drift.update(produced: produced, elapsed: deviceSample - firstSample!, blockSamples: frameSamples) {
        case nil: break
        case .insertSilence(let count): try fifo.appendSilence(count)
        case .drop(let count): fifo.drain(min(fifo.count, count))
        case .resample(let rate):
            // Over one second of samples, given again with every block.
            let distance = sampleRate
            try resampler.compensate(sampleDelta: Int((-rate * Double(distance)).rounded()), distance: rate == 0 ? 0 : distance)
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
        if firstSample != nil {
            try resampler.convert(nil, into: fifo)
            try queueBlocks(includingPartial: true)
        }
        if let mixLane { try mixLane.mixer.finish(lane: mixLane.index, statistics: statistics) }
    }

    private func queueBlocks(includingPartial: Bool) throws {
        while fifo.count >= blockSize || (includingPartial && fifo.count > 0) {
            let count = min(blockSize, fifo.count)
            let time = Timestamp(value: firstSample! + samplesQueued, timeBase: Rational(1, Int32(sampleRate)))
            samplesQueued += Int64(count)
            if let mixLane {
                if !mixBlock.hasBuffers || mixBlock.sampleCount < blockSize {
                    try mixBlock.allocateAudio(sampleCount: blockSize, format: .floatPlanar, channels: fifo.channels, sampleRate: sampleRate)
                }
                try fifo.read(into: mixBlock, sampleCount: count)
                try mixLane.mixer.add(lane: mixLane.index, mixBlock, count: count, at: time.value, statistics: statistics)
                continue
            }
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
            buffer.push(.audio, CapturedItem(slot: slot, time: time, levels: pendingLevels))
            pendingLevels = nil
        }
    }
}
