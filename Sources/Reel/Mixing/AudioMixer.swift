import FFmpegCore
import Glibc
import SystemSupport

/// The sound inputs of a session mixed into its one audio stream (`AudioMix`, then `PeakLimiter`): each input's
/// `AudioFrameSink` hands its blocks, resampled and drift-corrected on its own reader thread, to its lane;
/// mixed blocks go into the capture buffer as a single input's would, metered when the session meters sound.
/// With separate tracks the lanes are aligned the same way but not summed: each block's slot holds one frame
/// per input (`CapturedItem.tracks`), each limited on its own (a gain can push one over full scale).
/// The capture buffer's audio stream ends when every lane has.
final class AudioMixer: Sendable {
    /// One input's place in the mix, as its sink knows it.
    struct Lane {
        let mixer: AudioMixer
        let index: Int
    }

    private struct State {
        var mix: AudioMix
        /// One per track: the mix's, or each separate input's.
        var limiters: [PeakLimiter]
        var meter: LevelMeter?
        var ended = false
    }

    private let state: Locked<State>
    private let buffer: CaptureBuffer
    private let waitsForEncoder: Bool
    private let sampleRate: Int
    private let channels: Int
    private let blockSize: Int
    /// The most sound inputs one session mixes.
    static let maximumInputs = RecordingConfiguration.maximumAudioInputs
    /// Samples one live input may trail the furthest by before it is mixed as silence where it has nothing.
    static let maximumLagSeconds = 0.25

    /// Frames per block: 1 when mixed, one per input when the inputs are separate tracks.
    let tracks: Int

    /// With `separate`, each input is a track of its own (`tracks` = the inputs); the meter then reads every
    /// track's channels, the first track's first.
    init(gains: [Double], sampleRate: Int, channels: Int, blockSize: Int, paced: Bool, metersLevels: Bool, separate: Bool = false,
         buffer: CaptureBuffer) {
        let linear = gains.map { Float(pow(10, $0 / 20)) }
        tracks = separate ? gains.count : 1
        state = Locked(State(mix: AudioMix(gains: linear, channels: channels, blockSize: blockSize,
                                           maximumLag: paced ? Int64(AudioMixer.maximumLagSeconds * Double(sampleRate)) : nil,
                                           stacks: separate),
                             limiters: Array(repeating: PeakLimiter(sampleRate: sampleRate), count: separate ? gains.count : 1),
                             meter: metersLevels ? LevelMeter(sampleRate: sampleRate, channelCount: channels * (separate ? gains.count : 1)) : nil))
        self.buffer = buffer
        self.waitsForEncoder = !paced
        self.sampleRate = sampleRate
        self.channels = channels
        self.blockSize = blockSize
    }

    func lane(_ index: Int) -> Lane { Lane(mixer: self, index: index) }

    /// `count` samples of a planar float frame from session sample `position`, from lane `lane`'s reader.
    func add(lane: Int, _ frame: Frame, count: Int, at position: Int64, statistics: ReaderStatistics) throws {
        let samples = frame.floatPlanarSamples(count: count)
        try state.withLock { state in
            state.mix.add(lane: lane, samples, at: position)
            try emit(&state, statistics: statistics)
        }
    }

    /// Lane `lane`'s input ended: the mix goes on without it; the last lane's end ends the audio stream.
    func finish(lane: Int, statistics: ReaderStatistics) throws {
        try state.withLock { state in
            state.mix.finish(lane: lane)
            try emit(&state, statistics: statistics)
            if state.mix.isDone && !state.ended {
                state.ended = true
                buffer.endStream(.audio)
            }
        }
    }

    /// Every block that is due, limited, into the capture buffer (a paced session drops a block when its
    /// outputs are behind, as a single input does; an unpaced one waits).
    private func emit(_ state: inout State, statistics: ReaderStatistics) throws {
        while let block = state.mix.nextBlock() {
            // The block's channels, track by track.
            var trackSamples = (0..<tracks).map { Array(block.samples[($0 * channels)..<(($0 + 1) * channels)]) }
            for track in 0..<tracks { state.limiters[track].apply(&trackSamples[track]) }
            let slot: CaptureSlot
            switch buffer.takeFreeSlot(.audio, wait: waitsForEncoder) {
            case .slot(let free): slot = free
            case .closed: return
            case .noneFree:
                statistics.countDropped()
                continue
            }
            for track in 0..<tracks {
                let target = slot.frames[track]
                if !target.hasBuffers || target.sampleCount < blockSize || target.channelCount != channels {
                    try target.allocateAudio(sampleCount: blockSize, format: .floatPlanar, channels: channels, sampleRate: sampleRate)
                }
                try target.setFloatPlanarSamples(trackSamples[track])
            }
            var levels: AudioLevels? = nil
            if state.meter != nil {
                let seconds = Double(block.position) / Double(sampleRate)
                let channels = self.channels
                levels = state.meter!.add(count: slot.frames[0].sampleCount, at: seconds) { channel, range in
                    slot.frames[channel / channels].sampleStatistics(channel: channel % channels, range: range)
                }.last
            }
            statistics.countDelivered()
            buffer.push(.audio, CapturedItem(slot: slot, time: Timestamp(value: block.position, timeBase: Rational(1, Int32(sampleRate))),
                                             levels: levels))
        }
    }
}
