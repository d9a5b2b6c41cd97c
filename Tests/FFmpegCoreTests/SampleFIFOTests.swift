import CFFmpeg
@testable import FFmpegCore
import Testing

/// A pause cuts what a movie queued past its instant: SampleFIFO.keepFirst keeps the oldest samples of every
/// channel, in order, and the FIFO goes on from there.
@Suite struct SampleFIFOTests {
    /// A planar float frame of `count` samples per channel: channel c's sample i is `start + i + 1000 c`.
    private func ramp(_ count: Int, channels: Int, start: Int) throws -> Frame {
        let frame = Frame()
        try frame.allocateAudio(sampleCount: count, format: .floatPlanar, channels: channels, sampleRate: 48000)
        frame.withPlanes { data, _ in
            for channel in 0..<channels {
                let plane = UnsafeMutablePointer(mutating: data[channel]!).withMemoryRebound(to: Float.self, capacity: count) { $0 }
                for index in 0..<count { plane[index] = Float(start + index + 1000 * channel) }
            }
        }
        return frame
    }

    private func values(_ frame: Frame, channel: Int) -> [Float] {
        frame.withPlanes { data, _ in
            let plane = UnsafeMutablePointer(mutating: data[channel]!).withMemoryRebound(to: Float.self, capacity: frame.sampleCount) { $0 }
            return (0..<frame.sampleCount).map { plane[$0] }
        }
    }

    @Test func keepFirstDropsTheNewestSamples() throws {
        let fifo = SampleFIFO(format: .floatPlanar, channels: 2)
        try fifo.append(try ramp(10, channels: 2, start: 0))
        fifo.drain(2)
        try fifo.keepFirst(5)
        #expect(fifo.count == 5)
        try fifo.append(try ramp(3, channels: 2, start: 100))
        let out = try ramp(8, channels: 2, start: 0)
        #expect(try fifo.read(into: out, sampleCount: 8) == 8)
        #expect(values(out, channel: 0) == [2, 3, 4, 5, 6, 100, 101, 102])
        #expect(values(out, channel: 1) == [1002, 1003, 1004, 1005, 1006, 1100, 1101, 1102])
        // Keeping as many as are queued, or more, changes nothing; keeping none empties it.
        try fifo.append(try ramp(4, channels: 2, start: 0))
        try fifo.keepFirst(4)
        try fifo.keepFirst(9)
        #expect(fifo.count == 4)
        try fifo.keepFirst(0)
        #expect(fifo.count == 0)
    }
}
