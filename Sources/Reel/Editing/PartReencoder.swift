import FFmpegCore
import QuickTime

/// One part of a trim that is encoded again (TrimPlan.Part), before anything is written: its packets, from the
/// group's keyframe on, are read from the input and decoded, the pictures it keeps are encoded (the first one a
/// keyframe, as any new encoder's), and the packets come out with the input's times (the writer moves them as
/// it moves copied ones). Each part has a reader, a decoder and an encoder of its own, drained at its end, so it
/// is a closed group of pictures of its own, and a trim's two parts are encoded at once on two threads.
struct PartReencoder: Sendable {
    let path: String
    let stream: Int
    let part: TrimPlan.Part
    let encoding: VideoEncoderSettings
    /// Where packets are written with their NAL units after lengths of this size (a copied sample description's);
    /// nil: as the encoder makes them (Annex B, for a sample description made from the encoder's headers).
    let lengthSize: Int?
    /// How long each kept picture is shown, by its presentation time (the input's: a re-encoded picture lasts
    /// as long as the one it replaces).
    let durations: [Int64: Int64]
    /// One picture's duration in the input's ticks (for decode times before the first picture).
    let pictureTicks: Int64
    /// Between copied pictures: decode times follow the input's rule — the k-th packet out decodes when the
    /// picture this many pictures before the k-th is shown — so they continue the copied ones' (x264 shortens
    /// its delay for a part of a picture or two). Nil: the encoder's own.
    let decodeDelay: Int?

    /// What the part made: its packets in decode order, the pictures encoded, and the encoder's headers.
    struct Encoded: Sendable {
        var packets: [Packet]
        var pictures: Int
        var extradata: [UInt8]
        /// The encoder's stream description (for a movie whose every picture is encoded again).
        var parameters: StreamParameters
    }

    /// The part's decode and encode loop on packets read from `input` by the caller (a part as long as a whole
    /// movie is encoded as it is written, not gathered first).
    func run(reading input: InputContext) throws -> Run {
        Run(reencoder: self, decoder: try Decoder(input: input, streamIndex: stream),
            encoder: try Encoder(video: encoding, globalHeader: MovieWriter.needsGlobalHeader), scaler: nil)
    }

    /// Reads, decodes and encodes the part, gathering its packets (a smart trim's part: at most a group of pictures).
    func encode() throws -> Encoded {
        let input = try InputContext(url: path, formatName: nil)
        var run = try run(reading: input)
        let encoder = run.encoder
        let packet = Packet()
        var number = 0
        while number < part.decoded.upperBound, try input.read(into: packet) != .endOfFile {
            guard packet.streamIndex == stream, !packet.isEmpty else { continue }
            defer { number += 1 }
            if part.decoded.contains(number) { try run.decode(packet) }
        }
        try run.finish()
        return Encoded(packets: run.packets, pictures: run.sentTimes.count, extradata: encoder.extradata,
                       parameters: try StreamParameters(of: encoder, timeBase: input.streams[stream].timeBase))
    }

    /// The decode and encode loop of one part (a join's input encoded again to match another: the whole input,
    /// its pictures scaled to the encoder's size by `scaler`). Packets gather in `packets` for the caller.
    struct Run {
        let reencoder: PartReencoder
        let decoder: Decoder
        let encoder: Encoder
        let scaler: Scaler?
        let frame = Frame()
        let scaled = Frame()
        let packet = Packet()
        var packets: [Packet] = []
        /// Packets the encoder gave so far (the caller may take `packets` as they come).
        var emitted = 0
        /// The input times of the pictures sent to the encoder, in order: the encoder numbers them 0, 1 ... (its
        /// clock counts pictures) and its packets get these times back.
        var sentTimes: [Int64] = []
        /// The last kept picture came out of the decoder (pictures come out in presentation order): the part's
        /// remaining packets are not decoded (a tail keeps the start of its group only).
        var complete = false

        mutating func decode(_ input: Packet) throws {
            guard !complete else { return }
            if try decoder.send(input) == .outputFull {
                try receivePictures()
                _ = try decoder.send(input)
            }
            try receivePictures()
        }

        /// The part's last packet was read: the decoder and the encoder give what they hold.
        mutating func finish() throws {
            if !complete {
                _ = try decoder.send(nil)
                try receivePictures()
            }
            try encode(nil)
        }

        private mutating func receivePictures() throws {
            let part = reencoder.part
            while try decoder.receive(into: frame) == .received {
                let time = frame.bestEffortTimestamp
                if time >= part.lastKept { complete = true }
                guard time >= part.firstKept && time <= part.lastKept else { continue }
                frame.pts = Int64(sentTimes.count)
                sentTimes.append(time)
                frame.forcesKeyframe = false  // the decoder's picture types are not this encode's
                if let scaler, !scaler.isPassThrough(for: frame) {
                    if !scaled.hasBuffers {
                        try scaled.allocateVideo(width: scaler.outputWidth, height: scaler.outputHeight, pixelFormat: scaler.outputFormat)
                    }
                    try scaler.scale(frame, into: scaled)
                    scaled.pts = frame.pts
                    try encode(scaled)
                } else {
                    try encode(frame)
                }
            }
        }

        private mutating func encode(_ picture: Frame?) throws {
            if try encoder.send(picture) == .outputFull {
                try drain()
                _ = try encoder.send(picture)
            }
            try drain()
        }

        /// The input time of the encoder's picture number `number` (a decode time before the first picture: so
        /// many pictures before it).
        private func inputTime(_ number: Int64) -> Int64 {
            number < 0 ? sentTimes[0] + number * reencoder.pictureTicks : sentTimes[Int(number)]
        }

        private mutating func drain() throws {
            while try encoder.receive(into: packet) == .received {
                let out = Packet()
                out.moveReference(from: packet)
                out.pts = inputTime(out.pts)
                out.dts = reencoder.decodeDelay.map { inputTime(Int64(emitted - $0)) } ?? inputTime(out.dts)
                emitted += 1
                out.duration = reencoder.durations[out.pts] ?? reencoder.pictureTicks
                if let lengthSize = reencoder.lengthSize {
                    guard let stored = out.withPayload({ SamplePayload.lengthPrefixed(annexB: $0, lengthSize: lengthSize) }) else {
                        throw TrimSplice.Failure.unconvertiblePicture
                    }
                    try out.replacePayload(with: stored)
                }
                packets.append(out)
            }
        }
    }
}
