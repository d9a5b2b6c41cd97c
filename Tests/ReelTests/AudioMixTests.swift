@testable import Reel
import Testing

/// The mix on plain sample arrays: lanes placed by their session sample positions, a gap or an overlap in a
/// lane, a live lane that trails too far, the last short block; and the limiter.
@Suite struct AudioMixTests {
    static func ramp(_ count: Int, from: Float, channels: Int = 1) -> [[Float]] {
        Array(repeating: (0..<count).map { from + Float($0) }, count: channels)
    }

    @Test func lanesAreSummedAtTheirPositions() {
        var mix = AudioMix(gains: [1, 0.5], channels: 1, blockSize: 4, maximumLag: nil)
        mix.add(lane: 0, Self.ramp(8, from: 0), at: 100)
        #expect(mix.nextBlock() == nil, "unpaced: waits for every lane to start")
        // The second lane starts two samples later.
        mix.add(lane: 1, [[10, 10, 10, 10, 10, 10]], at: 102)
        let first = mix.nextBlock()
        #expect(first?.position == 100 && first?.samples == [[0, 1, 7, 8]])
        let second = mix.nextBlock()
        #expect(second?.position == 104 && second?.samples == [[9, 10, 11, 12]])
        #expect(mix.nextBlock() == nil, "lane 0 has nothing past 108")
        mix.finish(lane: 0)
        mix.finish(lane: 1)
        #expect(mix.nextBlock() == nil && mix.isDone, "both ended exactly at 108")
    }

    @Test func aLaneThatStartsAfterAWholeBlockAddsNothingToIt() {
        // Live: lane 1's first samples come a block and more after lane 0's, beyond the lag.
        var mix = AudioMix(gains: [1, 1], channels: 1, blockSize: 4, maximumLag: 4)
        mix.add(lane: 0, Self.ramp(12, from: 1), at: 0)
        mix.add(lane: 1, [[100, 100, 100, 100]], at: 6)
        #expect(mix.nextBlock()?.samples == [[1, 2, 3, 4]])
        #expect(mix.nextBlock()?.samples == [[5, 6, 107, 108]])
    }

    @Test func separateTracksAreLaidSideBySideNotSummed() {
        var mix = AudioMix(gains: [1, 0.5], channels: 2, blockSize: 4, maximumLag: nil, stacks: true)
        #expect(mix.blockChannels == 4)
        mix.add(lane: 0, Self.ramp(4, from: 1, channels: 2), at: 0)
        mix.add(lane: 1, Self.ramp(2, from: 10, channels: 2), at: 2)
        let block = mix.nextBlock()
        #expect(block?.position == 0)
        #expect(block?.samples == [[1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 5, 5.5], [0, 0, 5, 5.5]],
                "lane 1 at its own channels, at its gain, silent before it starts")
        mix.finish(lane: 0)
        mix.finish(lane: 1)
        #expect(mix.nextBlock() == nil && mix.isDone)
    }

    @Test func aGapIsSilenceAndAnOverlapIsDropped() {
        var mix = AudioMix(gains: [1], channels: 2, blockSize: 4, maximumLag: nil)
        mix.add(lane: 0, Self.ramp(2, from: 1, channels: 2), at: 0)
        mix.add(lane: 0, Self.ramp(2, from: 5, channels: 2), at: 3)   // a one-sample hole at 2
        mix.add(lane: 0, Self.ramp(3, from: 9, channels: 2), at: 4)   // overlaps sample 4
        let block = mix.nextBlock()
        #expect(block?.samples == [[1, 2, 0, 5], [1, 2, 0, 5]])
        mix.finish(lane: 0)
        // The end: a short block with what is left (6, then 10 and 11).
        #expect(mix.nextBlock()?.samples == [[6, 10, 11], [6, 10, 11]] && mix.isDone)
    }

    @Test func aTrailingLiveLaneIsMixedAsSilenceAndItsLateSamplesDropped() {
        var mix = AudioMix(gains: [1, 1], channels: 1, blockSize: 4, maximumLag: 8)
        mix.add(lane: 0, Self.ramp(4, from: 1), at: 0)
        mix.add(lane: 1, [[100, 100]], at: 0)
        #expect(mix.nextBlock() == nil, "lane 1 is only 2 behind")
        mix.add(lane: 0, Self.ramp(8, from: 5), at: 4)
        // Lane 1 now trails by 10 >= 8: mixed as silence where it has nothing.
        #expect(mix.nextBlock()?.samples == [[101, 102, 3, 4]])
        #expect(mix.nextBlock()?.samples == [[5, 6, 7, 8]])
        mix.add(lane: 1, [[50, 50, 50, 50, 50, 50, 50, 50]], at: 2)
        #expect(mix.lateSamples == 6, "samples 2-7 came after their blocks")
        #expect(mix.nextBlock() == nil, "lane 1 is back within the lag: its samples 10 and 11 are waited for")
        mix.add(lane: 1, [[50, 50]], at: 10)
        #expect(mix.nextBlock()?.samples == [[59, 60, 61, 62]])
    }

    @Test func aLiveLaneThatNeverStartsDoesNotHoldTheMix() {
        var mix = AudioMix(gains: [1, 1], channels: 1, blockSize: 4, maximumLag: 8)
        mix.add(lane: 0, Self.ramp(4, from: 1), at: 0)
        #expect(mix.nextBlock() == nil)
        mix.add(lane: 0, Self.ramp(4, from: 5), at: 4)
        #expect(mix.nextBlock()?.samples == [[1, 2, 3, 4]])
    }

    @Test func theLimiterLeavesQuietMixesAloneAndKeepsLoudOnesUnderFullScale() {
        var limiter = PeakLimiter(sampleRate: 48_000)
        var quiet: [[Float]] = [[0.5, -0.9, 0.3]]
        limiter.apply(&quiet)
        #expect(quiet == [[0.5, -0.9, 0.3]] && limiter.gain == 1)
        var loud: [[Float]] = [(0..<1024).map { $0 % 2 == 0 ? 1.8 : -1.8 }]
        limiter.apply(&loud)
        #expect(loud[0].allSatisfy { abs($0) <= PeakLimiter.ceiling } && limiter.gain < 0.6)
        // It comes back: after a second of quiet blocks the gain is 1 again.
        for _ in 0..<50 {
            var block: [[Float]] = [Array(repeating: 0.1, count: 1024)]
            limiter.apply(&block)
        }
        #expect(limiter.gain > 0.999, "\(limiter.gain)")
    }
}
