import FFmpegCore
import QuickTime

extension Joiner {
    /// What a join wrote: pictures, sound samples presented (nil without sound) and the file's size.
    struct Written {
        var frames: Int
        var samples: Int64?
        var bytes: Int64
    }

    /// Reads each input again and writes its pictures with their times moved to its start on the joined
    /// timeline, and its sound through JoinSound; under the output's hidden name, renamed into place once complete.
    static func write(_ inputs: [JoinInput], videoStarts: [Int64], encodedAgain: [Bool], encoding: TrimEncoding?,
                      to output: String) throws -> Written {
        let firstInput = try InputContext(url: inputs[0].path, formatName: nil)
        let soundInput = inputs.firstIndex { $0.index.audio != nil }
        let sound = try soundInput.map { number in
            let audio = inputs[number].index.audio!
            let reader = number == 0 ? firstInput : try InputContext(url: inputs[number].path, formatName: nil)
            let bitRate = try StreamParameters(copying: audio.index, of: reader).bitRate
            return try JoinSound(sampleRate: audio.sampleRate, channels: audio.channelCount,
                                 bitRate: bitRate > 0 ? Int(bitRate) : JoinSound.fallbackBitRate * audio.channelCount)
        }
        var parameters = [try StreamParameters(copying: inputs[0].index.video.index, of: firstInput)]
        let firstVideo = inputs[0].index.video
        let lengthSize = CodecConfigurationRecord.nalLengthSize(codec: Codec(firstVideo.codecName), record: parameters[0].extradata)
        if let sound { parameters.append(try StreamParameters(of: sound.encoder)) }
        let videoBase = inputs[0].index.video.timeBase
        var samples: Int64 = 0
        var lastDecodeTime = Int64.min
        let written = try EditedMovie.write("join", to: output, streams: parameters, rotation: inputs[0].index.video.turn) { movie in
            for (number, input) in inputs.enumerated() {
                let reader = number == 0 ? firstInput : try InputContext(url: input.path, formatName: nil)
                let base = input.index.video.timeBase
                var conformer = try encodedAgain[number] ? makeConformer(for: input, reader: reader, encoding: encoding!, lengthSize: lengthSize,
                                                                         first: inputs[0]) : nil
                func writeVideo(_ packet: Packet) throws {
                    if base != videoBase { packet.rescaleTimestamps(from: base, to: videoBase) }
                    packet.pts += videoStarts[number]
                    packet.dts += videoStarts[number]
                    guard packet.dts > lastDecodeTime else {
                        throw ReelError.invalidInput("\(input.path): its pictures decode before the end of the movie before it (another reordering depth): join cannot copy it after that one")
                    }
                    lastDecodeTime = packet.dts
                    try movie.submit(packet, stream: 0)
                }
                func writeConformed(_ run: inout PartReencoder.Run) throws {
                    for packet in run.packets { try writeVideo(packet) }
                    run.packets.removeAll(keepingCapacity: true)
                }
                // The input's packets: pictures written as they come (or encoded again first), sound packets to `sound`.
                func read(_ sound: (Packet) throws -> Void) throws {
                    let packet = Packet()
                    while try reader.read(into: packet) != .endOfFile {
                        guard !packet.isEmpty else { continue }
                        if packet.dts == Timestamp.noValue { packet.dts = packet.pts }
                        if packet.pts == Timestamp.noValue { packet.pts = packet.dts }
                        if packet.streamIndex == input.index.video.index {
                            if conformer != nil {
                                try conformer!.decode(packet)
                                try writeConformed(&conformer!)
                            } else {
                                try writeVideo(packet)
                            }
                        } else if packet.streamIndex == input.index.audio?.index {
                            try sound(packet)
                        }
                    }
                }
                if let sound {
                    let rate = Rational(1, Int32(inputs[soundInput!].index.audio!.sampleRate))
                    let span = rescale(videoStarts[number + 1], videoBase, rate) - rescale(videoStarts[number], videoBase, rate)
                    sound.begin(span: span, timeBase: input.index.audio?.timeBase ?? rate)
                    let decoder = try input.index.audio.map { try Decoder(input: reader, streamIndex: $0.index) }
                    try read { packet in try sound.decode(packet, with: decoder!) { try movie.submit($0, stream: 1) } }
                    try sound.end(decoder: decoder) { try movie.submit($0, stream: 1) }
                    samples += span
                } else {
                    try read { _ in }
                }
                if conformer != nil {
                    try conformer!.finish()
                    try writeConformed(&conformer!)
                }
            }
            try sound?.finish { try movie.submit($0, stream: 1) }
        }
        return Written(frames: written.frames, samples: sound == nil ? nil : samples, bytes: written.bytes)
    }

    /// The decode and encode loop that makes `input`'s pictures the first input's kind: scaled to its size and
    /// pixel format, encoded with its encoder's options, their NAL units after its length prefixes; the encoder's
    /// parameter sets checked to be the first's.
    private static func makeConformer(for input: JoinInput, reader: InputContext, encoding: TrimEncoding, lengthSize: Int?,
                                      first: JoinInput) throws -> PartReencoder.Run {
        let times = input.index.videoSamples.map(\.presentationTime)
        let part = TrimPlan.Part(decoded: 0..<input.index.videoSamples.count, firstKept: times.min() ?? 0, lastKept: times.max() ?? 0)
        let reencoder = PartReencoder(path: input.path, stream: input.index.video.index, part: part, encoding: encoding.settings,
                                      lengthSize: lengthSize, durations: Trimmer.shownDurations(input.index.videoSamples),
                                      pictureTicks: pictureTicks(of: input),
                                      decodeDelay: Trimmer.decodeDelay(first.index.videoSamples, pictureTicks: pictureTicks(of: first)))
        let encoder = try Encoder(video: encoding.settings, globalHeader: MovieWriter.needsGlobalHeader)
        let codec = Codec(first.index.video.codecName)
        let stored = codec == .hevc ? CodecConfigurationRecord.parameterSets(hvcC: first.index.video.extradata)
                                    : CodecConfigurationRecord.parameterSets(avcC: first.index.video.extradata)
        guard lengthSize != nil, CodecConfigurationRecord.parameterSets(annexB: encoder.extradata, codec: codec) == stored else {
            throw ReelError.invalidInput("\(input.path): its video is not encoded as \(first.path)'s, and \(first.path)'s encoder settings do not reproduce its parameter sets, so it cannot be encoded again to match: transcode the movies to one preset first")
        }
        let scaler = Scaler(outputWidth: encoding.settings.width, outputHeight: encoding.settings.height,
                            outputFormat: encoding.settings.pixelFormat, outputColour: encoding.settings.colour)
        return PartReencoder.Run(reencoder: reencoder, decoder: try Decoder(input: reader, streamIndex: input.index.video.index),
                                 encoder: encoder, scaler: scaler)
    }

    /// One picture's duration in `input`'s video ticks (its frame rate's; 30 fps when it gives none).
    private static func pictureTicks(of input: JoinInput) -> Int64 {
        let rate = input.index.video.frameRate ?? Rational(30, 1)
        return max(1, Int64((1 / rate.doubleValue / input.index.video.timeBase.doubleValue).rounded()))
    }
}
