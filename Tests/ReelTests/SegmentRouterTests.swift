@testable import Reel
import Testing

/// Where a movie's video packets go, against files that record what they were given.
@Suite struct SegmentRouterTests {
    final class RecordingFile: SegmentFile {
        let start: SegmentBoundaries.Boundary
        var end: SegmentBoundaries.Boundary?
        var videoEnded = false
        var audioEnded = false
        var slots: [Int64] = []
        init(at slot: Int64) { start = SegmentBoundaries.Boundary(slot: slot, sample: slot * 1600) }
    }

    /// Decode order of a closed group of pictures with B-frames across a boundary at 30: the pictures before
    /// it go to the first file even after the second one opened; the keyframe at 30 ends the first file's video.
    @Test func packetsGoToTheFileThatHoldsTheirTime() {
        var router = SegmentRouter<RecordingFile>()
        let first = RecordingFile(at: 0)
        router.add(first)
        var ended: [Int64] = []
        func route(_ slot: Int64) {
            guard let (file, _, closing) = router.routeVideo(slot: slot) else { return }
            file.slots.append(slot)
            ended += closing.map(\.start.slot)
        }
        for slot: Int64 in [0, 3, 1, 2, 6, 4, 5] { route(slot) }
        first.end = SegmentBoundaries.Boundary(slot: 30, sample: 48_000)
        let second = RecordingFile(at: 30)
        router.add(second)
        #expect(router.current === second)
        for slot: Int64 in [29, 27, 28, 30, 33, 31] { route(slot) }
        #expect(first.slots == [0, 3, 1, 2, 6, 4, 5, 29, 27, 28])
        #expect(second.slots == [30, 33, 31])
        #expect(ended == [0])  // once, at the first packet of the second file
        #expect(first.videoEnded && !second.videoEnded)
        let early = router.takeFinished()
        #expect(early.isEmpty)  // its audio has not ended yet
        #expect(router.audioFile === first)
        first.audioEnded = true
        #expect(router.audioFile === second)
        let finished = router.takeFinished()
        #expect(finished.map(\.start.slot) == [0])
        #expect(router.open.count == 1)
    }

    /// The last file is never taken before the end; a packet past every file's end is dropped.
    @Test func theLastFileStaysOpenAndLatePacketsAreDropped() {
        var router = SegmentRouter<RecordingFile>()
        let only = RecordingFile(at: 0)
        router.add(only)
        only.videoEnded = true
        only.audioEnded = true
        let none = router.takeFinished()
        #expect(none.isEmpty)
        only.end = SegmentBoundaries.Boundary(slot: 10, sample: 16_000)
        let late = router.routeVideo(slot: 10)
        let last = router.routeVideo(slot: 9)
        #expect(late == nil && last?.file === only)
        let all = router.takeAll()
        #expect(all.count == 1 && router.open.isEmpty)
    }
}
