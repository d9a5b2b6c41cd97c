import Dispatch
import FFmpegCore
import SystemSupport
import Testing

/// A running session hands each captured frame to several outputs at once (a movie, its tiers, the preview, a
/// photo), each on its own thread and each with its own Scaler or Resampler. Reading one frame from several
/// threads must give every reader the same result and leave the frame as it was; under `make check-tsan` this
/// also proves the reads are not Swift modifying accesses (CI once reported one in `Scaler.scale`).
@Suite struct SharedFrameTests {
    static let readers = 4
    static let rounds = 40

    @Test func onePictureScaledByManyThreadsAtOnce() throws {
        let source = Frame()
        try source.allocateVideo(width: 320, height: 240, pixelFormat: .yuv420p)
        source.withPlanes { data, lines in
            for plane in 0..<3 {
                let rows = plane == 0 ? 240 : 120, columns = plane == 0 ? 320 : 160
                let base = UnsafeMutablePointer(mutating: data[plane]!)
                for row in 0..<rows {
                    for column in 0..<columns { base[row * Int(lines[plane]) + column] = UInt8((row * 7 + column * 3 + plane * 50) & 0xFF) }
                }
            }
        }
        let before = lumaChecksum(source, width: 320, height: 240)
        let sums = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: Self.readers) { _ in
            let scaler = Scaler(outputWidth: 160, outputHeight: 120, outputFormat: .yuvj420p)
            let output = Frame()
            var last = 0
            for _ in 0..<Self.rounds {
                try? output.allocateVideo(width: 160, height: 120, pixelFormat: .yuvj420p)
                try? scaler.scale(source, into: output)
                last = lumaChecksum(output, width: 160, height: 120)
            }
            sums.withLock { $0.append(last) }
        }
        let results = sums.withLock { $0 }
        #expect(results.count == Self.readers)
        #expect(Set(results).count == 1, "every reader scales the same picture: \(results)")
        #expect(results.first != 0)
        #expect(lumaChecksum(source, width: 320, height: 240) == before, "the shared picture is left as it was")
    }

    @Test func oneAudioBlockResampledByManyThreadsAtOnce() throws {
        let source = Frame()
        try source.allocateAudio(sampleCount: 1024, format: .signed16, channels: 2, sampleRate: 48_000)
        source.withPlanes { data, _ in
            let samples = UnsafeMutableRawPointer(mutating: data[0]!).assumingMemoryBound(to: Int16.self)
            for index in 0..<2048 { samples[index] = Int16(truncatingIfNeeded: index * 37) }
        }
        let counts = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: Self.readers) { _ in
            let resampler = Resampler(outputRate: 44_100, outputChannels: 1)
            let fifo = SampleFIFO(format: .floatPlanar, channels: 1)
            for _ in 0..<Self.rounds { _ = try? resampler.convert(source, into: fifo) }
            counts.withLock { $0.append(fifo.count) }
        }
        let results = counts.withLock { $0 }
        #expect(results.count == Self.readers)
        #expect(Set(results).count == 1, "every reader converts the same samples: \(results)")
        // 40 blocks of 1024 samples at 48 kHz are about 37,600 samples at 44.1 kHz (less the resampler's delay).
        #expect((37_000...37_700).contains(results.first ?? 0), "\(results)")
    }

    private func lumaChecksum(_ frame: Frame, width: Int, height: Int) -> Int {
        frame.withPlanes { data, lines in
            var sum = 0
            for row in 0..<height {
                for column in 0..<width { sum = sum &* 31 &+ Int(data[0]![row * Int(lines[0]) + column]) }
            }
            return sum
        }
    }
}
