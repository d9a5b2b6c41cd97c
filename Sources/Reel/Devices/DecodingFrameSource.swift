import FFmpegCore

/// An input's packets decoded into frames, for the streams asked for (other streams' packets are skipped).
/// A damaged packet is skipped, as players do; at the end every decoder is drained.
final class DecodingFrameSource: FrameSource {
    let input: InputContext
    let streams: [SourceStream]
    /// By stream index; nil for streams not decoded.
    private let decoders: [Decoder?]
    private let packet = Packet()
    /// The decoder that may hold frames to take before the next packet is read.
    private var draining: Decoder?
    /// The decoder refused `packet` until its frames are taken: send it again then.
    private var packetRefused = false
    /// Once the input has ended: the decoders still to drain, last first.
    private var toFlush: [Decoder]?
    /// Packets or frames skipped because they could not be decoded.
    private(set) var damagedFrames = 0
    private var failuresInARow = 0
    private static let failuresBeforeGivingUp = 1000

    /// Opens a decoder for each of `streamIndexes`; throws FFmpeg's error for the first that cannot be opened.
    init(input: InputContext, streamIndexes: [Int]) throws {
        self.input = input
        var decoders = [Decoder?](repeating: nil, count: input.streams.count)
        for index in streamIndexes { decoders[index] = try Decoder(input: input, streamIndex: index) }
        self.decoders = decoders
        streams = streamIndexes.map { index in
            let info = input.streams[index]
            return SourceStream(index: index, mediaType: info.mediaType, timeBase: info.timeBase,
                                rotation: info.turn, colour: info.colour,
                                bitsPerComponent: info.pixelFormat.bitsPerComponent, pictureFormat: info.pixelFormat,
                                width: info.width, height: info.height)
        }
    }

    var startTime: Timestamp? { input.startTime }
    var timestampsMayJump: Bool { input.timestampsMayJump }
    var durationSeconds: Double? { input.durationSeconds }

    func nextFrame(into frame: Frame) throws -> FrameRead {
        while true {
            if let decoder = draining {
                do {
                    if try decoder.receive(into: frame) == .received {
                        failuresInARow = 0
                        return .frame(streamIndex: decoder.stream.index)
                    }
                } catch let error as FFmpegError where !error.isEndOfFile {
                    // A picture that cannot be decoded (damaged or cut-short data) is skipped, as players do;
                    // the decoder goes on with the next (a decoder that only fails is given up on).
                    damagedFrames += 1
                    failuresInARow += 1
                    if failuresInARow > DecodingFrameSource.failuresBeforeGivingUp { throw error }
                    continue
                }
                draining = nil
                if packetRefused {
                    packetRefused = false
                    try send(packet, to: decoder)
                    continue
                }
            }
            if var remaining = toFlush {
                guard let decoder = remaining.popLast() else { return .endOfFile }
                toFlush = remaining
                _ = try decoder.send(nil)
                draining = decoder
                continue
            }
            switch try input.read(into: packet) {
            case .packet:
                let index = packet.streamIndex
                guard index < decoders.count, let decoder = decoders[index] else { continue }
                try send(packet, to: decoder)
            case .endOfFile:
                toFlush = decoders.compactMap { $0 }.reversed()
            case .tryAgain:
                return .tryAgain
            }
        }
    }

    private func send(_ packet: Packet, to decoder: Decoder) throws {
        do {
            packetRefused = try decoder.send(packet) == .outputFull
        } catch let error as FFmpegError where !error.isEndOfFile {
            // One damaged packet (a corrupt MJPEG frame, a truncated file) is skipped, not fatal.
            damagedFrames += 1
        }
        draining = decoder
    }

    /// Positions decoding at the keyframe at or before `timestamp` (in that stream's time base).
    func seek(streamIndex: Int, toKeyframeBefore timestamp: Int64) throws {
        try input.seek(streamIndex: streamIndex, toKeyframeBefore: timestamp)
        for decoder in decoders { decoder?.flushBuffers() }
        draining = nil
        packetRefused = false
        toFlush = nil
    }
}
