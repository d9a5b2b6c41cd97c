import FFmpegCore

/// Turns a channel-by-channel stream of samples into `AudioLevels` updates: RMS over 50 ms blocks, a peak
/// meter that falls 11.76 dB/s, a 20 s peak hold, a count of full-scale samples; one update every 100 ms of
/// sound (every second block). Pure: it is given the statistics of sample runs (which `Frame` measures in
/// place), so it is tested without FFmpeg, and it keeps no samples.
struct LevelMeter {
    static let blockSeconds = 0.05
    static let updateSeconds = 0.1
    static let peakHoldSeconds = 20.0
    /// IEC 60268-18's peak meter return, as OBS uses: 20 dB in 1.7 s.
    static let peakDecayPerSecond = 11.76

    let sampleRate: Int
    let channelCount: Int
    let blockSamples: Int
    private let blocksPerUpdate: Int

    private struct ChannelState {
        var block = SampleStatistics()
        /// The last whole block's RMS, dBFS.
        var rms = -Double.infinity
        /// The peak meter's value (dBFS).
        var peak = -Double.infinity
        /// The highest peak of each of the last 20 s (magnitude), newest last: the hold is their maximum.
        var secondPeaks: [Double] = []
        var clipped = 0
    }

    private var channels: [ChannelState]
    /// Samples of the block being filled, and whole blocks since the last update.
    private var filled = 0
    private var blocks = 0
    /// Samples measured since the start (the clock of the updates), and the blocks in the current second.
    private var samples: Int64 = 0
    private var blocksThisSecond = 0
    /// Session time (seconds) of sample 0.
    private var origin: Double?

    init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = max(1, sampleRate)
        self.channelCount = max(1, channelCount)
        blockSamples = max(1, Int((Double(self.sampleRate) * LevelMeter.blockSeconds).rounded()))
        blocksPerUpdate = max(1, Int((LevelMeter.updateSeconds / LevelMeter.blockSeconds).rounded()))
        channels = Array(repeating: ChannelState(), count: self.channelCount)
    }

    /// Adds `count` samples of every channel starting at session time `time` (seconds); `statistics(channel,
    /// range)` measures a run of them. Returns the updates completed by them (usually none or one).
    mutating func add(count: Int, at time: Double, statistics: (Int, Range<Int>) -> SampleStatistics?) -> [AudioLevels] {
        if origin == nil { origin = time - Double(samples) / Double(sampleRate) }
        var updates: [AudioLevels] = []
        var offset = 0
        while offset < count {
            let run = min(count - offset, blockSamples - filled)
            for channel in 0..<channelCount {
                if let measured = statistics(channel, offset..<(offset + run)) { channels[channel].block.add(measured) }
            }
            offset += run
            filled += run
            samples += Int64(run)
            if filled == blockSamples, let update = endBlock() { updates.append(update) }
        }
        return updates
    }

    private mutating func endBlock() -> AudioLevels? {
        filled = 0
        blocks += 1
        blocksThisSecond += 1
        let blocksPerSecond = Int((1 / LevelMeter.blockSeconds).rounded())
        let decay = LevelMeter.peakDecayPerSecond * LevelMeter.blockSeconds
        for index in channels.indices {
            var channel = channels[index]
            let block = channel.block
            channel.rms = block.count > 0 ? AudioLevels.decibels((block.sumOfSquares / Double(block.count)).squareRoot()) : -.infinity
            channel.peak = max(AudioLevels.decibels(block.peak), channel.peak - decay)
            channel.clipped += block.fullScaleCount
            if channel.secondPeaks.isEmpty || blocksThisSecond == 1 { channel.secondPeaks.append(0) }
            channel.secondPeaks[channel.secondPeaks.count - 1] = max(channel.secondPeaks[channel.secondPeaks.count - 1], block.peak)
            if channel.secondPeaks.count > Int(LevelMeter.peakHoldSeconds) { channel.secondPeaks.removeFirst() }
            channel.block = SampleStatistics()
            channels[index] = channel
        }
        if blocksThisSecond == blocksPerSecond { blocksThisSecond = 0 }
        guard blocks % blocksPerUpdate == 0 else { return nil }
        let time = (origin ?? 0) + Double(samples) / Double(sampleRate)
        let levels = channels.map { channel in
            AudioLevels.Channel(rms: channel.rms, peak: channel.peak,
                                peakHold: AudioLevels.decibels(channel.secondPeaks.max() ?? 0), clippedSamples: channel.clipped)
        }
        return AudioLevels(time: time, channels: levels)
    }
}
