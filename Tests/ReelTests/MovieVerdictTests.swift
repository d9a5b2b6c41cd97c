@testable import Reel
import Testing

@Suite struct MovieVerdictTests {
    func facts(_ reason: StopReason?, video: Int = 30, encoded: Int64 = 48_000, end: Int64 = 48_000, cut: Bool = false,
               finalized: Bool = true) -> MovieVerdict.Facts {
        .init(stopReason: reason, finalized: finalized, hasVideo: true, hasAudio: true, fileVideoFrames: video,
              audioSamplesEncoded: encoded, audioEnd: end, cut: cut)
    }

    @Test func aCleanStopIsUsableWithWhatWasEncoded() {
        let verdict = MovieVerdict(facts(.stopped, end: 47_000))
        #expect(verdict.usable && verdict.problem == nil && verdict.fileAudioSamples == 48_000)
    }

    @Test func aCutCountsAudioUpToTheLastWrittenPacket() {
        #expect(MovieVerdict(facts(.maxFileSizeReached, encoded: 48_000, end: 40_960, cut: true)).fileAudioSamples == 40_960)
        #expect(MovieVerdict(facts(.maxFileSizeReached, encoded: 1_000, end: 2_048, cut: true)).fileAudioSamples == 1_000)
    }

    @Test func aLimitBeforeATracksFirstSampleLeavesNoMovie() {
        let noPicture = MovieVerdict(facts(.maxFileSizeReached, video: 0, cut: true))
        #expect(!noPicture.usable && noPicture.problem?.hasPrefix("the size limit was reached before the first picture") == true)
        let noSound = MovieVerdict(facts(.diskFull, end: 0, cut: true))
        #expect(!noSound.usable && noSound.problem?.hasPrefix("the disk filled before the first audio") == true)
        // The same counts without a limit (an input that ended) are a usable movie of what there is.
        #expect(MovieVerdict(facts(.inputEnded, video: 0)).usable)
    }

    @Test func failuresAndUnfinishedFilesAreNotUsable() {
        #expect(!MovieVerdict(facts(.failed)).usable)
        #expect(!MovieVerdict(facts(.stopped, finalized: false)).usable)
        #expect(!MovieVerdict(facts(.stopped, video: 0, encoded: 0, end: 0)).usable, "nothing captured")
    }

    @Test func encodersAreFlushedUnlessALimitOrFailureStopped() {
        #expect(MovieVerdict.flushesEncoders(after: .stopped) && MovieVerdict.flushesEncoders(after: .maxDurationReached))
        #expect(MovieVerdict.flushesEncoders(after: nil) && MovieVerdict.flushesEncoders(after: .inputEnded))
        #expect(!MovieVerdict.flushesEncoders(after: .maxFileSizeReached) && !MovieVerdict.flushesEncoders(after: .diskFull))
        #expect(!MovieVerdict.flushesEncoders(after: .failed) && !MovieVerdict.flushesEncoders(after: .diskSpaceLimitReached))
    }
}
