import FFmpegCore
import SystemSupport

/// The live streams' own AAC encoder, where the movie has no continuous encode to hand them: a movie without
/// a file (LiveStreamOutput), and a segmented follower of a shared AAC encoder (which gets the owner's packets file
/// by file, each file's cut at its end). It takes the same samples from the movie's queue in one continuous
/// encode (its frames 1024 samples each, the last one short). Any other movie hands the streams the packets
/// of its own encoder, which run on across its files. Owned by the movie's thread; AAC runs on an EncoderThread.
final class LiveAudio {
    private let thread: EncoderThread
    private let fifo: SampleFIFO
    /// The movie's sample at the start of what `fifo` holds.
    private var position: Int64?
    private(set) var encodedNanoseconds: Int64 = 0
    private(set) var finished = false

    init(_ preset: Preset) throws {
        thread = try .aac(preset, name: "reel.encoder.live")
        fifo = SampleFIFO(format: .floatPlanar, channels: preset.audio.channels)
    }

    /// The encoder that describes the streams' sound.
    var encoder: Encoder { thread.encoder }

    /// The samples of `frame`, the movie's from sample `start` on (contiguous with the ones before).
    func append(_ frame: Frame, start: Int64) throws {
        if position == nil { position = start }
        try fifo.append(frame)
        try encode(final: false)
    }

    /// Encodes whole frames (and with `final` the short rest) from the queue.
    private func encode(final: Bool) throws {
        let size = thread.encoder.frameSize
        while fifo.count >= size || (final && fifo.count > 0) {
            let start = position!
            var count = 0
            try thread.encode { frame in
                count = try fifo.read(into: frame, sampleCount: size)
                frame.pts = start
            }
            position = start + Int64(count)
        }
    }

    /// Hands the packets encoded so far to `handle` (pts in the movie's samples).
    func collect(_ handle: (Packet) throws -> Void) throws { try thread.collectPackets(handle) }

    /// The rest of the samples and the encoder's delayed frames; then the last packets to `collect`.
    func finish() throws {
        guard !finished else { return }
        finished = true
        defer { encodedNanoseconds = thread.finish(flush: true) }
        if position != nil { try encode(final: true) }
    }
}
