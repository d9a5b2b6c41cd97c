import FFmpegCore

/// A join's sound: each input's presented samples (decoded, its priming and what its edit list leaves out
/// skipped), exactly its span of the joined timeline — cut where its sound runs past its pictures, silence
/// where it stops short or where the input has none — encoded as one AAC track. One encoder across the joins:
/// copied AAC frames cannot be joined sample-exactly in common readers (a QuickTime edit list of one entry per
/// input is the format's way, and FFmpeg 5.1 repeats up to a frame at each join of it while GStreamer 1.22 stops
/// after two inputs: measured).
final class JoinSound {
    let encoder: Encoder
    /// Bits a second per channel when the input does not say its sound's rate (as Reel's presets' AAC).
    static let fallbackBitRate = 64_000
    private let fifo: SampleFIFO
    private let frame = Frame()
    private let decoded = Frame()
    private let packet = Packet()
    private let frameSize: Int
    private let sampleRate: Int
    private let channels: Int
    /// Samples handed to the encoder so far (the joined track's position).
    private var position: Int64 = 0

    init(sampleRate: Int, channels: Int, bitRate: Int) throws {
        self.sampleRate = sampleRate
        self.channels = channels
        encoder = try Encoder(audio: AudioEncoderSettings(sampleRate: sampleRate, channels: channels, bitRate: bitRate),
                              globalHeader: MovieWriter.needsGlobalHeader)
        frameSize = encoder.frameSize
        fifo = SampleFIFO(format: .floatPlanar, channels: channels)
        try frame.allocateAudio(sampleCount: frameSize, format: .floatPlanar, channels: channels, sampleRate: sampleRate)
    }

    /// The input being added: its span and time base, and how many of its samples are in so far.
    private var span: Int64 = 0
    private var timeBase = Rational(1, 1)
    private var produced: Int64 = 0

    /// The next input's sound fills `span` samples; its decoder's frames are timed in `timeBase` from its
    /// first presented sample.
    func begin(span: Int64, timeBase: Rational) {
        self.span = span
        self.timeBase = timeBase
        produced = 0
    }

    /// One of the input's AAC packets, decoded; what falls in its span goes to the encoder.
    func decode(_ input: Packet, with decoder: Decoder, emit: (Packet) throws -> Void) throws {
        if try decoder.send(input) == .outputFull {
            try take(from: decoder, emit: emit)
            _ = try decoder.send(input)
        }
        try take(from: decoder, emit: emit)
    }

    /// The input's packets are all in (`decoder` nil: it has no sound): what the decoder holds, then silence
    /// to the end of its span.
    func end(decoder: Decoder?, emit: (Packet) throws -> Void) throws {
        if let decoder {
            _ = try decoder.send(nil)
            try take(from: decoder, emit: emit)
        }
        try fifo.appendSilence(Int(span - produced))
        produced = span
        try encodeWholeFrames(emit: emit)
    }

    /// Decoded frames cut to `[0, span)`, gaps between them filled with silence.
    private func take(from decoder: Decoder, emit: (Packet) throws -> Void) throws {
        while try decoder.receive(into: decoded) == .received {
            let start = Timestamp(value: decoded.bestEffortTimestamp, timeBase: timeBase).rescaled(to: Rational(1, Int32(sampleRate))).value
            let end = min(start + Int64(decoded.sampleCount), span)
            if start > produced {
                let gap = min(start, span) - produced
                try fifo.appendSilence(Int(gap))
                produced += gap
            }
            guard end > produced else { continue }
            try appendDecoded(skipping: Int(produced - start), count: Int(end - produced))
            produced = end
            try encodeWholeFrames(emit: emit)
        }
    }

    /// The last samples (a short frame) and what the encoder holds.
    func finish(emit: (Packet) throws -> Void) throws {
        if fifo.count > 0 { try encode(count: fifo.count, emit: emit) }
        _ = try encoder.send(nil)
        try drain(emit: emit)
    }

    private func appendDecoded(skipping offset: Int, count: Int) throws {
        guard decoded.channelCount == channels, decoded.sampleFormat == .floatPlanar, decoded.sampleRate == sampleRate else {
            throw ReelError.invalidInput("the sound decodes as \(decoded.sampleRate) Hz, \(decoded.channelCount) channels in another sample format: join cannot take it")
        }
        decoded.sampleCount = offset + count  // what runs past the span is left out
        try fifo.append(decoded, skipping: offset)
    }

    private func encodeWholeFrames(emit: (Packet) throws -> Void) throws {
        while fifo.count >= frameSize { try encode(count: frameSize, emit: emit) }
    }

    private func encode(count: Int, emit: (Packet) throws -> Void) throws {
        try fifo.read(into: frame, sampleCount: count)
        frame.pts = position
        position += Int64(count)
        if try encoder.send(frame) == .outputFull {
            try drain(emit: emit)
            _ = try encoder.send(frame)
        }
        try drain(emit: emit)
    }

    private func drain(emit: (Packet) throws -> Void) throws {
        while try encoder.receive(into: packet) == .received { try emit(packet) }
    }
}
