import FFmpegCore
import QuickTime

/// One part of a trim that is encoded again (TrimPlan.Part): its packets, from the group's keyframe on, are
/// decoded, the pictures it keeps are encoded (the first one a keyframe, as any new encoder's), and the packets
/// come out with the input's times (the caller moves them as it moves copied ones). Each part has a decoder and
/// an encoder of its own, drained at its end, so it is a closed group of pictures of its own.
final class PartReencoder {
    let part: TrimPlan.Part
    private let decoder: Decoder
    let encoder: Encoder
    /// Where packets are written with their NAL units after lengths of this size (a copied sample description's);
    /// nil: as the encoder makes them (Annex B, for a sample description made from the encoder's headers).
    private let lengthSize: Int?
    /// How long each kept picture is shown, by its presentation time (the input's: a re-encoded picture lasts
    /// as long as the one it replaces).
    private let durations: [Int64: Int64]
    private let frame = Frame()
    private let packet = Packet()
    /// The input times of the pictures sent to the encoder, in order: the encoder numbers them 0, 1 ... (its
    /// clock counts pictures) and its packets get these times back.
    private var sentTimes: [Int64] = []
    /// One picture's duration in the input's ticks (for decode times before the first picture).
    private let pictureTicks: Int64
    var pictures: Int { sentTimes.count }
    /// Between copied pictures: decode times follow the input's rule — the k-th packet out decodes at the k-th
    /// picture's time less the input's reordering delay — so they continue the copied ones' (x264 shortens its
    /// delay for a part of a picture or two). Nil: the encoder's own.
    private let decodeDelay: Int64?
    private var emitted = 0
    private var decoderDrained = false

    init(input: InputContext, stream: Int, part: TrimPlan.Part, encoding: VideoEncoderSettings, lengthSize: Int?,
         durations: [Int64: Int64], pictureTicks: Int64, decodeDelay: Int64?) throws {
        self.decodeDelay = decodeDelay
        self.part = part
        self.pictureTicks = max(pictureTicks, 1)
        self.lengthSize = lengthSize
        self.durations = durations
        decoder = try Decoder(input: input, streamIndex: stream)
        encoder = try Encoder(video: encoding, globalHeader: MovieWriter.needsGlobalHeader)
    }

    /// Decodes one of the part's packets (decode order) and encodes the kept pictures it gives.
    func decode(_ input: Packet, emit: (Packet) throws -> Void) throws {
        if try decoder.send(input) == .outputFull {
            try receivePictures(emit: emit)
            _ = try decoder.send(input)
        }
        try receivePictures(emit: emit)
    }

    /// The part's last packet was decoded: the decoder and the encoder give what they hold.
    func finish(emit: (Packet) throws -> Void) throws {
        if !decoderDrained {
            _ = try decoder.send(nil)
            decoderDrained = true
            try receivePictures(emit: emit)
        }
        try encode(nil, emit: emit)
    }

    private func receivePictures(emit: (Packet) throws -> Void) throws {
        while try decoder.receive(into: frame) == .received {
            let time = frame.bestEffortTimestamp
            guard time >= part.firstKept && time <= part.lastKept else { continue }
            frame.pts = Int64(sentTimes.count)
            sentTimes.append(time)
            frame.forcesKeyframe = false  // the decoder's picture types are not this encode's
            try encode(frame, emit: emit)
        }
    }

    private func encode(_ picture: Frame?, emit: (Packet) throws -> Void) throws {
        if try encoder.send(picture) == .outputFull {
            try drain(emit: emit)
            _ = try encoder.send(picture)
        }
        try drain(emit: emit)
    }

    /// The input time of the encoder's picture number `number` (a decode time before the first picture: so many
    /// pictures before it).
    private func inputTime(_ number: Int64) -> Int64 {
        number < 0 ? sentTimes[0] + number * pictureTicks : sentTimes[Int(number)]
    }

    private func drain(emit: (Packet) throws -> Void) throws {
        while try encoder.receive(into: packet) == .received {
            packet.pts = inputTime(packet.pts)
            packet.dts = decodeDelay.map { sentTimes[emitted] - $0 } ?? inputTime(packet.dts)
            emitted += 1
            packet.duration = durations[packet.pts] ?? pictureTicks
            if let lengthSize {
                guard let stored = packet.withPayload({ SamplePayload.lengthPrefixed(annexB: $0, lengthSize: lengthSize) }) else {
                    throw TrimSplice.Failure.unconvertiblePicture
                }
                try packet.replacePayload(with: stored)
            }
            try emit(packet)
        }
    }
}
