import CFFmpeg
@testable import FFmpegCore
import Testing

/// Peak, sum of squares and full-scale counts read in place from audio frames of every layout the capture
/// may hand over: interleaved 16-bit (ALSA, PulseAudio), planar float (the encoders'), each channel alone.
@Suite struct SampleStatisticsTests {
    @Test func interleaved16BitChannelsAreReadApart() throws {
        let frame = Frame()
        try frame.allocateAudio(sampleCount: 4, format: .signed16, channels: 2, sampleRate: 48000)
        let samples: [Int16] = [16384, 0, -16384, 100, 32767, -32768, 0, 0]  // L R L R ...
        frame.withPlanes { data, _ in
            let plane = UnsafeMutablePointer(mutating: data[0]!).withMemoryRebound(to: Int16.self, capacity: 8) { $0 }
            for (index, sample) in samples.enumerated() { plane[index] = sample }
        }
        let left = try #require(frame.sampleStatistics(channel: 0, range: 0..<4))
        #expect(abs(left.peak - 32767.0 / 32768) < 1e-9 && left.count == 4 && left.fullScaleCount == 1)
        #expect(abs(left.sumOfSquares - (0.25 + 0.25 + pow(32767.0 / 32768, 2))) < 1e-9)
        let right = try #require(frame.sampleStatistics(channel: 1, range: 1..<3))
        #expect(right.peak == 1 && right.count == 2 && right.fullScaleCount == 1, "\(right)")
        #expect(frame.sampleStatistics(channel: 2, range: 0..<4) == nil, "no third channel")
        #expect(frame.sampleStatistics(channel: 0, range: 2..<5) == nil, "past the frame's samples")
    }

    @Test func planarFloatChannelsAreTheirPlanes() throws {
        let frame = Frame()
        try frame.allocateAudio(sampleCount: 3, format: .floatPlanar, channels: 2, sampleRate: 48000)
        frame.withPlanes { data, _ in
            let left = UnsafeMutablePointer(mutating: data[0]!).withMemoryRebound(to: Float.self, capacity: 3) { $0 }
            let right = UnsafeMutablePointer(mutating: data[1]!).withMemoryRebound(to: Float.self, capacity: 3) { $0 }
            for index in 0..<3 {
                left[index] = [0.125, -0.5, 1.25][index]
                right[index] = 0
            }
        }
        let left = try #require(frame.sampleStatistics(channel: 0, range: 0..<3))
        #expect(left.peak == 1.25 && left.fullScaleCount == 1 && abs(left.sumOfSquares - (0.015625 + 0.25 + 1.5625)) < 1e-6)
        let right = try #require(frame.sampleStatistics(channel: 1, range: 0..<3))
        #expect(right.peak == 0 && right.sumOfSquares == 0 && right.fullScaleCount == 0)
    }
}
