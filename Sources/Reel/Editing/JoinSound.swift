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
    /// An input whose sound has another rate, channel count or sample format is converted to the track's first
    /// (swresample), through `converted`.
    private var resampler: Resampler?
    private let converted: SampleFIFO
    private let conversionFrame = Frame()
    private var conversionCapacity = 0

    init(sampleRate: Int, channels: Int, bitRate: Int) throws {
        self.sampleRate = sampleRate
        self.channels = channels
        encoder = try Encoder(audio: AudioEncoderSettings(sampleRate: sampleRate, channels: channels, bitRate: bitRate),
                              globalHeader: MovieWriter.needsGlobalHeader)
        frameSize = encoder.frameSize
        fifo = SampleFIFO(format: .floatPlanar, channels: channels)
        converted = SampleFIFO(format: .floatPlanar, channels: channels)
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
        resampler = nil
        converted.reset()
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
            var count = decoded.sampleCount
            let needsConversion = decoded.channelCount != channels || decoded.sampleFormat != .floatPlanar || decoded.sampleRate != sampleRate
            if needsConversion {
                // Placed at the frame's time (the resampler's few samples of filter delay aside).
                resampler = resampler ?? Resampler(outputRate: sampleRate, outputChannels: channels)
                count = try resampler!.convert(decoded, into: converted)
            }
            let end = min(start + Int64(count), span)
            if start > produced {
                let gap = min(start, span) - produced
                try fifo.appendSilence(Int(gap))
                produced += gap
            }
            if end > produced {
                let skip = Int(produced - start), kept = Int(end - produced)
                if needsConversion {
                    try moveConverted(skipping: skip, count: kept)
                } else {
                    decoded.sampleCount = skip + kept  // what runs past the span is left out
                    try fifo.append(decoded, skipping: skip)
                }
                produced = end
                try encodeWholeFrames(emit: emit)
            }
            converted.reset()
        }
    }

    /// Samples of the converted frame into the encoder's FIFO: `count` of them after the first `skip`.
    private func moveConverted(skipping skip: Int, count: Int) throws {
        if conversionCapacity < skip + count {
            conversionFrame.unref()
            conversionCapacity = max(skip + count, 4096)
            try conversionFrame.allocateAudio(sampleCount: conversionCapacity, format: .floatPlanar, channels: channels, sampleRate: sampleRate)
        }
        try converted.read(into: conversionFrame, sampleCount: skip + count)
        try fifo.append(conversionFrame, skipping: skip)
    }

    /// The last samples (a short frame) and what the encoder holds.
    func finish(emit: (Packet) throws -> Void) throws {
        if fifo.count > 0 { try encode(count: fifo.count, emit: emit) }
        _ = try encoder.send(nil)
        try drain(emit: emit)
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
