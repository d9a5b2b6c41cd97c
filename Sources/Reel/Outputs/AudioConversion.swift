import FFmpegCore

/// A movie's own copy of the session's sound in its preset's rate and channels, when they differ from the
/// capture's: one resampler per track (separate tracks are never mixed into each other), each converting
/// into its FIFO, the converted samples read out together into one frame per track.
final class AudioConversion {
    private let resamplers: [Resampler]
    private let fifos: [SampleFIFO]
    private let frames: [Frame]
    private let sampleRate: Int
    private let channels: Int
    /// Samples the frames have room for (sized for the largest block yet).
    private var capacity = 0

    init(tracks: Int, sampleRate: Int, channels: Int) {
        resamplers = (0..<tracks).map { _ in Resampler(outputRate: sampleRate, outputChannels: channels) }
        fifos = (0..<tracks).map { _ in SampleFIFO(format: .floatPlanar, channels: channels) }
        frames = (0..<tracks).map { _ in Frame() }
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Output samples swresample holds from what it was given (the same for every track).
    var delay: Int { resamplers[0].delay }

    /// `blocks` (one frame per track; nil: what swresample still holds) in this movie's format, or nil when
    /// swresample kept all of it for now. Every track is converted alike, so each gives as many samples.
    func convert(_ blocks: [Frame]?) throws -> [Frame]? {
        var count = 0
        for track in resamplers.indices {
            count = try resamplers[track].convert(blocks?[track], into: fifos[track])
        }
        guard count > 0 else { return nil }
        if capacity < count {
            capacity = max(count, 4096)
            for frame in frames {
                try frame.allocateAudio(sampleCount: capacity, format: .floatPlanar, channels: channels, sampleRate: sampleRate)
            }
        }
        for track in fifos.indices { try fifos[track].read(into: frames[track], sampleCount: count) }
        return frames
    }
}
