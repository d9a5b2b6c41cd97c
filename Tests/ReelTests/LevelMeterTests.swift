import FFmpegCore
import Foundation
@testable import Reel
import Testing

/// The meter's rules on generated samples, without FFmpeg: 50 ms RMS blocks, an update every 100 ms of sound
/// stamped with its time, a peak meter falling 11.76 dB/s, a 20 s peak hold, full-scale samples counted.
@Suite struct LevelMeterTests {
    /// Feeds `seconds` of samples (`sample(channel, index)`) in blocks of `chunk`, as frames would come.
    static func feed(_ meter: inout LevelMeter, seconds: Double, start: Int = 0, chunk: Int = 1024,
                     _ sample: (Int, Int) -> Double) -> [AudioLevels] {
        var updates: [AudioLevels] = []
        let total = Int(seconds * Double(meter.sampleRate))
        var done = 0
        while done < total {
            let count = min(chunk, total - done)
            let first = start + done
            updates += meter.add(count: count, at: 5 + Double(first) / Double(meter.sampleRate)) { channel, range in
                var statistics = SampleStatistics()
                for index in range {
                    let value = sample(channel, first + index)
                    statistics.add(SampleStatistics(peak: abs(value), sumOfSquares: value * value, count: 1,
                                                    fullScaleCount: abs(value) >= 1 ? 1 : 0))
                }
                return statistics
            }
            done += count
        }
        return updates
    }

    @Test func aToneOnTheLeftAndSilenceOnTheRight() {
        var meter = LevelMeter(sampleRate: 48000, channelCount: 2)
        let updates = LevelMeterTests.feed(&meter, seconds: 1) { channel, index in
            channel == 0 ? 0.125 * sin(2 * Double.pi * 1000 * Double(index) / 48000) : 0
        }
        #expect(updates.count == 10, "ten updates a second")
        #expect(updates.map(\.time).enumerated().allSatisfy { abs($1 - (5 + 0.1 * Double($0 + 1))) < 1e-9 }, "\(updates.map(\.time))")
        let last = try! #require(updates.last)
        #expect(abs(last.channels[0].peak - -18.06) < 0.05 && abs(last.channels[0].rms - -21.07) < 0.05, "\(last.channels[0])")
        #expect(abs(last.channels[0].peakHold - -18.06) < 0.05 && last.channels[0].clippedSamples == 0)
        #expect(last.channels[1].peak == -.infinity && last.channels[1].rms == -.infinity && last.channels[1].peakHold == -.infinity)
    }

    @Test func peaksFallAndAreHeld() {
        var meter = LevelMeter(sampleRate: 8000, channelCount: 1)
        // One 50 ms block at full scale (clipping: 400 samples), then silence.
        _ = LevelMeterTests.feed(&meter, seconds: 0.05) { _, _ in 1 }
        var updates = LevelMeterTests.feed(&meter, seconds: 1.05, start: 400) { _, _ in 0 }
        let afterOne = try! #require(updates.last)
        #expect(abs(afterOne.channels[0].peak - -11.76 * 1.05) < 0.01, "the peak meter falls 11.76 dB/s: \(afterOne.channels[0].peak)")
        #expect(afterOne.channels[0].peakHold == 0 && afterOne.channels[0].clippedSamples == 400)
        #expect(afterOne.channels[0].rms == -.infinity)
        updates = LevelMeterTests.feed(&meter, seconds: 18, start: 8800) { _, _ in 0 }
        #expect(updates.last?.channels[0].peakHold == 0, "held for 20 s")
        updates = LevelMeterTests.feed(&meter, seconds: 1.5, start: 8800 + 144000) { _, _ in 0 }
        #expect(updates.last?.channels[0].peakHold == -.infinity, "and gone after them")
    }

    @Test func framesOfAnySizeMakeTheSameUpdates() {
        func run(_ chunk: Int) -> [AudioLevels] {
            var meter = LevelMeter(sampleRate: 44100, channelCount: 1)
            return LevelMeterTests.feed(&meter, seconds: 0.7, chunk: chunk) { _, index in 0.5 * sin(Double(index) / 7) }
        }
        let reference = run(4410)
        for chunk in [1, 441, 1000, 2205, 30000] {
            let updates = run(chunk)
            #expect(updates.count == reference.count && zip(updates, reference).allSatisfy { abs($0.channels[0].rms - $1.channels[0].rms) < 1e-9 && $0.time == $1.time },
                    "chunks of \(chunk)")
        }
    }

    @Test func silenceIsNullInJSON() throws {
        let levels = AudioLevels(time: 1.5, channels: [.init(rms: -21.0712, peak: -18.0618, peakHold: -18.0618), .init(rms: -.infinity, peak: -.infinity, peakHold: -.infinity)])
        let text = String(decoding: try JSONEncoder().encode(levels), as: UTF8.self)
        #expect(text.contains("\"rms\":-21.07") && text.contains("\"rms\":null"), "\(text)")
        #expect(try JSONDecoder().decode(AudioLevels.self, from: Data(text.utf8)).channels[1].peak == -.infinity)
    }
}
