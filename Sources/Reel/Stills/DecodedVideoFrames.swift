import FFmpegCore

/// The decoded pictures of an input's video stream, one at a time, on the calling thread: for one-shot
/// stills (grab, snap), where a reader thread and queues would only add latency.
final class DecodedVideoFrames {
    let input: InputContext
    let stream: StreamInfo
    private let decoder: Decoder
    private let packet = Packet()
    private var draining = false

    init(input: InputContext, describedAs name: String) throws {
        guard let stream = input.bestStream(of: .video) else {
            throw ReelError.invalidInput("\(name) has no video stream")
        }
        self.input = input
        self.stream = stream
        do {
            decoder = try Decoder(input: input, streamIndex: stream.index)
        } catch {
            throw ReelError.invalidInput("cannot decode the video of \(name): \(error)")
        }
    }

    /// Decodes the next picture into `frame`; false at the end of the stream.
    func next(into frame: Frame) throws -> Bool {
        while true {
            switch try decoder.receive(into: frame) {
            case .received: return true
            case .endOfStream: return false
            case .needsInput: break
            }
            if draining { return false }
            switch try input.read(into: packet) {
            case .packet:
                guard packet.streamIndex == stream.index else { continue }
                do {
                    if try decoder.send(packet) == .outputFull { continue }
                } catch let error as FFmpegError where !error.isEndOfFile {
                    continue  // a damaged packet: skip it, as players do
                }
            case .endOfFile:
                draining = true
                _ = try decoder.send(nil)
            case .tryAgain:
                usleep(2_000)
            }
        }
    }

    /// Positions decoding at the keyframe at or before `timestamp` (in the stream's time base).
    func seek(toKeyframeBefore timestamp: Int64) throws {
        try input.seek(streamIndex: stream.index, toKeyframeBefore: timestamp)
        decoder.flushBuffers()
        draining = false
    }
}

import Glibc
