import FFmpegCore
import Foundation
@testable import Reel
import Testing

/// The AAC encoder on its own thread must give exactly what encoding on the caller's thread gives, stop
/// promptly when told, and pass its errors on.
@Suite struct EncoderThreadTests {
    static let settings = AudioEncoderSettings(sampleRate: 48000, channels: 2, bitRate: 128_000)

    /// Writes `count` samples of a 440 Hz tone starting at sample `start` into both planes.
    static func fillTone(_ frame: Frame, start: Int, count: Int) throws {
        try frame.makeWritable()
        frame.sampleCount = count
        for plane in 0..<2 {
            let data = withUnsafeBytes(of: frame.pointer.pointee.data) { $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>.self) }
            data.withMemoryRebound(to: Float.self, capacity: count) { samples in
                for index in 0..<count {
                    samples[index] = 0.5 * sinf(2 * .pi * 440 * Float(start + index) / 48000)
                }
            }
        }
    }

    static func makeFrames(_ count: Int, samples: Int) throws -> [Frame] {
        FFmpegLibrary.setLogLevel(.quiet)  // FFmpeg's log lines off, as the CLI has them
        return try (0..<count).map { _ in
            let frame = Frame()
            try frame.allocateAudio(sampleCount: samples, format: .floatPlanar, channels: 2, sampleRate: 48000)
            return frame
        }
    }

    struct EncodedPacket: Equatable {
        var pts: Int64
        var bytes: [UInt8]
        init(_ packet: Packet) {
            pts = packet.pts
            bytes = Array(UnsafeBufferPointer(start: packet.pointer.pointee.data, count: packet.size))
        }
    }

    /// 100 frames of 1024 samples and a short last one, encoded on the caller's thread.
    static func encodeDirectly() throws -> [EncodedPacket] {
        let encoder = try Encoder(audio: settings, globalHeader: true)
        let frame = try makeFrames(1, samples: 1024)[0]
        let packet = Packet()
        var packets: [EncodedPacket] = []
        func drain() throws {
            while try encoder.receive(into: packet) == .received { packets.append(EncodedPacket(packet)) }
        }
        for index in 0...100 {
            try fillTone(frame, start: index * 1024, count: index == 100 ? 300 : 1024)
            frame.pts = Int64(index * 1024)
            _ = try encoder.send(frame)
            try drain()
        }
        _ = try encoder.send(nil)
        try drain()
        return packets
    }

    @Test func givesTheSamePacketsAsEncodingOnTheCallersThread() throws {
        let expected = try EncoderThreadTests.encodeDirectly()
        let encoder = try Encoder(audio: EncoderThreadTests.settings, globalHeader: true)
        let thread = EncoderThread(encoder: encoder, frames: try EncoderThreadTests.makeFrames(3, samples: 1024),
                                   name: "test.encoder")
        var packets: [EncodedPacket] = []
        for index in 0...100 {
            try thread.encode { frame in
                try EncoderThreadTests.fillTone(frame, start: index * 1024, count: index == 100 ? 300 : 1024)
                frame.pts = Int64(index * 1024)
            }
            try thread.collectPackets { packets.append(EncodedPacket($0)) }
        }
        let cpu = thread.finish(flush: true)
        try thread.collectPackets { packets.append(EncodedPacket($0)) }
        #expect(packets.count == expected.count)
        #expect(packets == expected, "byte for byte and in order")
        #expect(cpu > 0)
    }

    @Test func finishingWithoutFlushDropsWhatIsQueuedAndReturns() throws {
        for _ in 0..<20 {
            let encoder = try Encoder(audio: EncoderThreadTests.settings, globalHeader: true)
            let thread = EncoderThread(encoder: encoder, frames: try EncoderThreadTests.makeFrames(8, samples: 1024),
                                       name: "test.encoder")
            for index in 0..<8 {
                try thread.encode { try EncoderThreadTests.fillTone($0, start: index * 1024, count: 1024); $0.pts = Int64(index * 1024) }
            }
            _ = thread.finish(flush: false)
            var count = 0
            try thread.collectPackets { _ in count += 1 }
            // Eight frames flushed give nine packets; AAC holds a frame back, so without the flush at most seven.
            #expect(count <= 7)
        }
    }

    @Test func anEncoderErrorReachesTheEngine() throws {
        let encoder = try Encoder(audio: EncoderThreadTests.settings, globalHeader: true)
        // AAC takes at most 1024 samples per frame: 2048 is refused.
        let thread = EncoderThread(encoder: encoder, frames: try EncoderThreadTests.makeFrames(2, samples: 2048),
                                   name: "test.encoder")
        var caught: Error?
        do {
            for index in 0..<4 {
                try thread.encode { try EncoderThreadTests.fillTone($0, start: index * 2048, count: 2048) }
            }
            // All four may be queued before the first is refused; the error then comes with the packets.
            for _ in 0..<200 where caught == nil {
                try thread.collectPackets { _ in }
                usleep(5_000)
            }
        } catch {
            caught = error
        }
        _ = thread.finish(flush: true)
        let error = try #require(caught as? FFmpegError)
        #expect(error.call.contains("avcodec_send_frame"))
    }
}
