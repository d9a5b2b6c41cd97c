import FFmpegCore
import FoundationEssentials
import Glibc

extension Joiner {
    /// What a join wrote: pictures, sound samples presented (nil without sound) and the file's size.
    struct Written {
        var frames: Int
        var samples: Int64?
        var bytes: Int64
    }

    /// Reads each input again and writes its pictures with their times moved to its start on the joined
    /// timeline, and its sound through JoinSound; under the output's hidden name, renamed into place once complete.
    static func write(_ inputs: [JoinInput], videoStarts: [Int64], to output: String) throws -> Written {
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
        if let sound { parameters.append(try StreamParameters(of: sound.encoder)) }
        let videoBase = inputs[0].index.video.timeBase
        let partial = PartialName.path(for: output)
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        var kept = false
        defer { if !kept { unlink(partial) } }
        let writer = try MovieWriter(path: partial, streams: parameters, rotation: inputs[0].index.video.turn, limits: RecordingLimits(), folder: folder)
        func submit(_ packet: Packet, stream: Int) throws {
            packet.streamIndex = stream
            if case .limitReached = try writer.submit(packet) { throw ReelError(.diskFull, "join \(output): the disk is full; nothing was kept") }
        }
        var samples: Int64 = 0
        do {
            try writer.start()
            var lastDecodeTime = Int64.min
            for (number, input) in inputs.enumerated() {
                let reader = number == 0 ? firstInput : try InputContext(url: input.path, formatName: nil)
                let base = input.index.video.timeBase
                // The input's packets: pictures written as they come, sound packets to its decoder.
                func read(_ sound: (Packet) throws -> Void) throws {
                    let packet = Packet()
                    while try reader.read(into: packet) != .endOfFile {
                        guard !packet.isEmpty else { continue }
                        if packet.dts == Timestamp.noValue { packet.dts = packet.pts }
                        if packet.pts == Timestamp.noValue { packet.pts = packet.dts }
                        if packet.streamIndex == input.index.video.index {
                            if base != videoBase { packet.rescaleTimestamps(from: base, to: videoBase) }
                            packet.pts += videoStarts[number]
                            packet.dts += videoStarts[number]
                            guard packet.dts > lastDecodeTime else {
                                throw ReelError.invalidInput("\(input.path): its pictures decode before the end of the movie before it (another reordering depth): join cannot copy it after that one")
                            }
                            lastDecodeTime = packet.dts
                            try submit(packet, stream: 0)
                        } else if packet.streamIndex == input.index.audio?.index {
                            try sound(packet)
                        }
                    }
                }
                guard let sound else {
                    try read { _ in }
                    continue
                }
                let rate = Rational(1, Int32(inputs[soundInput!].index.audio!.sampleRate))
                let span = rescale(videoStarts[number + 1], videoBase, rate) - rescale(videoStarts[number], videoBase, rate)
                sound.begin(span: span, timeBase: input.index.audio?.timeBase ?? rate)
                let decoder = try input.index.audio.map { try Decoder(input: reader, streamIndex: $0.index) }
                try read { packet in try sound.decode(packet, with: decoder!) { try submit($0, stream: 1) } }
                try sound.end(decoder: decoder) { try submit($0, stream: 1) }
                samples += span
            }
            try sound?.finish { try submit($0, stream: 1) }
            for stream in parameters.indices { _ = try writer.endStream(stream) }
            try writer.finish()
            if writer.stopReason != nil { throw ReelError(.diskFull, "join \(output): the disk is full; nothing was kept") }
        } catch {
            writer.abandon()
            if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace {
                throw ReelError(.diskFull, "join \(output): the disk filled while writing it; nothing was kept")
            }
            throw error
        }
        let frames = writer.writtenPackets[0]
        let failure = FileSystem.moveIntoPlace(partial, output)
        guard failure == 0 else {
            throw ReelError.runtime("join \(output): cannot put the movie in place (\(String(cString: strerror(failure))))")
        }
        kept = true
        var info = stat()
        return Written(frames: frames, samples: sound == nil ? nil : samples, bytes: stat(output, &info) == 0 ? Int64(info.st_size) : 0)
    }
}
