import FFmpegCore
import QuickTime
import SystemSupport

/// What a trim writes from its input, and how times move: the first kept picture presents at 0, and the first
/// copied AAC frame starts `audio.skip` samples before 0 (its warm-up and what precedes the span), so the
/// writer's edit lists present exactly the span. Pictures are copied packet for packet (`video`), or decoded
/// and encoded again (`head`, `tail`: TrimPlan's parts, with `encoding`).
struct CopiedSpan {
    /// Decode-order numbers of the video packets copied.
    var video: Range<Int>
    var head: TrimPlan.Part? = nil
    var tail: TrimPlan.Part? = nil
    var encoding: TrimEncoding? = nil
    /// Subtracted from the pictures' times.
    var videoShift: Int64
    var audio: AudioTrimPlan?
    /// The presentation time of the first copied AAC frame.
    var audioFirst: Int64

    /// Video packets to read, in decode order (copied and decoded).
    var videoEnd: Int { max(video.upperBound, head?.decoded.upperBound ?? 0, tail?.decoded.upperBound ?? 0) }
    /// Every picture is encoded again: the movie's sample description is the encoder's.
    var reencodesAll: Bool { video.isEmpty && tail == nil && head != nil }
}

/// Why re-encoded pictures cannot join copied ones in one sample description; the trim then encodes every
/// kept picture again.
enum TrimSplice {
    enum Failure: Error, Equatable {
        case parameterSetsDiffer
        case unconvertiblePicture
        /// A re-encoded part's decode times would not follow the copied pictures' (another reordering depth).
        case decodeOrder

        var reason: String {
            switch self {
            case .parameterSetsDiffer: "the encoder's parameter sets are not the input's"
            case .unconvertiblePicture: "an encoded picture could not be stored as the input's samples are"
            case .decodeOrder: "the re-encoded pictures' decode times do not follow the copied ones'"
            }
        }
    }
}

extension Trimmer {
    /// What a write made: pictures in the file, of them copied and encoded again, and the file's size.
    struct Written {
        var frames: Int
        var copied: Int
        var reencoded: Int
        var bytes: Int64
    }

    /// Reads `path` again and writes the span to `output` (under its hidden name, renamed into place once
    /// complete). Throws `TrimSplice.Failure` before writing anything when re-encoded pictures cannot share the
    /// input's sample description (a smart trim is then done as an exact one).
    static func write(_ span: CopiedSpan, from path: String, index: TrackIndex, to output: String) throws -> Written {
        let input = try InputContext(url: path, formatName: nil)
        let audioStream = span.audio == nil ? nil : index.audio?.index
        let copied = try StreamParameters(copying: index.video.index, of: input)
        let codec = Codec(index.video.codecName)
        var lengthSize: Int? = nil
        if !span.reencodesAll && (span.head != nil || span.tail != nil) {
            guard let size = CodecConfigurationRecord.nalLengthSize(codec: codec, record: copied.extradata) else { throw TrimSplice.Failure.unconvertiblePicture }
            lengthSize = size
        }
        let durations = shownDurations(index.videoSamples)
        let rate = span.encoding?.settings.frameRate ?? Rational(30, 1)
        let pictureTicks = Int64((Double(index.video.timeBase.denominator) / Double(index.video.timeBase.numerator) / rate.doubleValue).rounded())
        let reencoders = [span.head, span.tail].compactMap { $0 }.map { part in
            PartReencoder(path: path, stream: index.video.index, part: part, encoding: span.encoding!.settings, lengthSize: lengthSize,
                          durations: durations, pictureTicks: pictureTicks,
                          decodeDelay: lengthSize == nil ? nil : decodeDelay(index.videoSamples, pictureTicks: pictureTicks))
        }
        // Every kept picture encoded again (perhaps an hour's): encoded as it is written. A smart trim's two parts
        // (each at most a group of pictures): first, at once.
        var whole = span.reencodesAll ? try reencoders.first?.run(reading: input) : nil
        let parts = span.reencodesAll ? [] : try encodeAtOnce(reencoders)
        if lengthSize != nil, let first = parts.first {
            let written = CodecConfigurationRecord.parameterSets(annexB: first.extradata, codec: codec)
            let stored = codec == .hevc ? CodecConfigurationRecord.parameterSets(hvcC: copied.extradata)
                                        : CodecConfigurationRecord.parameterSets(avcC: copied.extradata)
            guard !written.isEmpty, written == stored else { throw TrimSplice.Failure.parameterSetsDiffer }
        }
        // The encoded part whose packets replace the input's from its first decode-order packet on.
        let partStarts = Dictionary(uniqueKeysWithValues: zip(reencoders.map(\.part.decoded.lowerBound), parts.indices))
        let reencodedRanges = reencoders.map(\.part.decoded)
        var streams = [try whole.map { try StreamParameters(of: $0.encoder, timeBase: index.video.timeBase) } ?? copied]
        if let audioStream { streams.append(try StreamParameters(copying: audioStream, of: input)) }
        var lastDecodeTime = Int64.min
        var copiedCount = 0
        let written = try EditedMovie.write("trim", to: output, streams: streams, rotation: index.video.turn) { movie in
            func submitVideo(_ packet: Packet) throws {
                packet.pts -= span.videoShift
                packet.dts -= span.videoShift
                guard packet.dts > lastDecodeTime, packet.dts <= packet.pts else { throw TrimSplice.Failure.decodeOrder }
                lastDecodeTime = packet.dts
                try movie.submit(packet, stream: 0)
            }
            var wholeFinished = false
            func submitWhole() throws {
                for encoded in whole!.packets { try submitVideo(encoded) }
                whole!.packets.removeAll(keepingCapacity: true)
            }
            func finishWhole() throws {
                wholeFinished = true
                try whole!.finish()
            }
            let packet = Packet()
            var videoNumber = 0, audioNumber = 0
            let audioShift = span.audioFirst + (span.audio?.skip ?? 0)
            // Up to the last packet the span needs (not to the end of a long input).
            while videoNumber < span.videoEnd || audioNumber < (span.audio?.frames.upperBound ?? 0),
                  try input.read(into: packet) != .endOfFile {
                guard !packet.isEmpty else { continue }
                // As TrackIndex read them: a time the demuxer does not know is the other one.
                if packet.dts == Timestamp.noValue { packet.dts = packet.pts }
                if packet.pts == Timestamp.noValue { packet.pts = packet.dts }
                if packet.streamIndex == index.video.index {
                    defer { videoNumber += 1 }
                    if whole != nil, let head = span.head, head.decoded.contains(videoNumber) {
                        try whole!.decode(packet)
                        if videoNumber == head.decoded.upperBound - 1 { try finishWhole() }
                        try submitWhole()
                    } else if let part = partStarts[videoNumber] {
                        for encoded in parts[part].packets { try submitVideo(encoded) }
                    } else if reencodedRanges.contains(where: { $0.contains(videoNumber) }) {
                        continue
                    } else if span.video.contains(videoNumber) {
                        try submitVideo(packet)
                        copiedCount += 1
                    }
                } else if packet.streamIndex == audioStream, let sound = span.audio {
                    defer { audioNumber += 1 }
                    guard sound.frames.contains(audioNumber) else { continue }
                    packet.pts -= audioShift
                    packet.dts -= audioShift
                    // The last frame is presented up to the span's end only.
                    if audioNumber == sound.frames.upperBound - 1 { packet.duration = sound.duration - packet.pts }
                    try movie.submit(packet, stream: 1)
                }
            }
            // An input that ended before the part's last packet (its index said more): what the encoder holds.
            if whole != nil && !wholeFinished {
                try finishWhole()
                try submitWhole()
            }
        }
        return Written(frames: written.frames, copied: copiedCount,
                       reencoded: (whole?.sentTimes.count ?? 0) + parts.reduce(0) { $0 + $1.pictures }, bytes: written.bytes)
    }

    /// Encodes the parts at once, the first on a thread of its own (a trim's two ends take two cores).
    static func encodeAtOnce(_ reencoders: [PartReencoder]) throws -> [PartReencoder.Encoded] {
        guard let first = reencoders.first else { return [] }
        let firstResult = Locked<Result<PartReencoder.Encoded, any Error>?>(nil)
        let thread = WorkerThread(name: "reel.trim.part") { firstResult.withLock { $0 = Result { try first.encode() } } }
        let rest = Result { try reencoders.dropFirst().map { try $0.encode() } }
        thread.join()
        return [try firstResult.withLock { $0! }.get()] + (try rest.get())
    }

    /// How many pictures the input's decode times run behind its presentation times (its first picture's offset
    /// in pictures: the reordering depth the encoder announced), which re-encoded parts between copied ones keep.
    static func decodeDelay(_ samples: [Sample], pictureTicks: Int64) -> Int {
        let ticks = max(0, (samples.first?.presentationTime ?? 0) - (samples.first?.decodeTime ?? 0))
        return Int((Double(ticks) / Double(max(pictureTicks, 1))).rounded())
    }

    /// How long each picture is shown (until the next one in presentation order; the last, its own duration),
    /// by its presentation time.
    static func shownDurations(_ samples: [Sample]) -> [Int64: Int64] {
        let times = samples.map(\.presentationTime).sorted()
        var durations: [Int64: Int64] = [:]
        for (position, time) in times.enumerated() {
            durations[time] = position + 1 < times.count ? times[position + 1] - time : max(samples.last { $0.presentationTime == time }?.duration ?? 1, 1)
        }
        return durations
    }
}
