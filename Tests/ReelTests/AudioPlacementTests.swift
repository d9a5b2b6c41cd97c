@testable import Reel
import Testing

@Suite struct AudioPlacementTests {
    func place(_ start: Int64, after expected: Int64, tolerance: Int64 = 0, file: Bool = true) -> AudioPlacement {
        AudioPlacement.place(start: start, expected: expected, blockSamples: 1024, tolerance: tolerance,
                             followsInputTimeline: file, sampleRate: 48_000)
    }

    @Test func contiguousBlocksAppend() {
        #expect(place(48_000, after: 48_000) == .append)
        #expect(place(48_001, after: 48_000, tolerance: 2) == .append, "within the resampling tolerance")
        #expect(place(47_999, after: 48_000, tolerance: 2) == .append)
    }

    @Test func holesAreFilledWithSilence() {
        #expect(place(50_000, after: 48_000) == .silenceFirst(2_000))
        #expect(place(48_000 + 10 * 48_000, after: 48_000) == .silenceFirst(480_000), "a file's long hole is real")
        #expect(place(48_000 + 2 * 48_000, after: 48_000, file: false) == .silenceFirst(96_000), "samples a device lost")
        #expect(place(48_000 + 6 * 48_000, after: 48_000, file: false) == .append, "a device that came back after 6 s")
    }

    @Test func overlapsInFilesAreSkippedUpToTheBlock() {
        #expect(place(47_500, after: 48_000) == .skipFirst(500))
        #expect(place(40_000, after: 48_000) == .skipFirst(1024), "never more than the block")
        #expect(place(47_500, after: 48_000, file: false) == .append, "a live device's blocks follow their count")
    }

    /// A damaged file's timestamps wrap around instead of trapping: the result is some placement, by the
    /// wrapped difference.
    @Test func wildTimestampsWrapInsteadOfCrashing() {
        #expect(place(.max, after: .min) == .skipFirst(1))
        #expect(place(.min, after: .max) == .silenceFirst(1))
    }
}
