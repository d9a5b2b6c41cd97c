@testable import Reel
import Testing

/// Where a movie's video and AAC packets go, against files that record what they were given.
@Suite struct SegmentRouterTests {
    final class RecordingFile: SegmentFile {
        let start: SegmentBoundaries.Boundary
        var end: SegmentBoundaries.Boundary?
        var videoEnded = false
        var audioEnded = false
        var slots: [Int64] = []
        init(at slot: Int64, sample: Int64? = nil) { start = SegmentBoundaries.Boundary(slot: slot, sample: sample ?? slot * 1600) }
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

    /// One AAC encoder's packets across a boundary at sample 48 000 (not on a frame's edge): the first file
    /// takes the encoder's priming and every frame up to the one holding 48 000, cut there; the second takes
    /// the frame before that one (the overlap its first sample decodes from) and the rest, on its own timeline:
    /// its edit list skips the 1 024 + 896 samples before its start. Each file plays exactly its own span.
    @Test func aacFramesAcrossABoundaryGoToBothFilesWithTheOverlap() {
        var router = SegmentRouter<RecordingFile>()
        let first = RecordingFile(at: 0)
        router.add(first)
        first.end = SegmentBoundaries.Boundary(slot: 30, sample: 48_000)
        let second = RecordingFile(at: 30)
        router.add(second)
        var parts: [(file: Int, pts: Int64, duration: Int64)] = []
        var samples = [Int64](repeating: 0, count: 2)
        var lastOfFirst: Int64? = nil
        for frame in -1...60 {
            for part in router.routeAudio(pts: Int64(frame) * 1024, duration: 1024, frameSize: 1024) {
                let file = part.file === first ? 0 : 1
                parts.append((file, part.pts, part.duration))
                samples[file] += part.samples
                if part.isLast { lastOfFirst = Int64(frame) * 1024; part.file.audioEnded = true }
            }
        }
        let firstParts = parts.filter { $0.file == 0 }
        let secondParts = parts.filter { $0.file == 1 }
        #expect(firstParts.first?.pts == -1024 && firstParts.count == 48)  // the priming, then frames 0 ... 46
        #expect(firstParts.last?.pts == 47_104 && firstParts.last?.duration == 896)  // cut at 48 000
        #expect(lastOfFirst == 47_104 && first.audioEnded && !second.audioEnded)
        #expect(secondParts.first?.pts == 46_080 - 48_000 && secondParts.first?.duration == 1024)  // the overlap
        #expect(secondParts.count == 60 - 45 + 1)  // frames 45 ... 60
        #expect(samples == [48_000, 61 * 1024 - 48_000])
        // The frame holding the boundary went to both files, with its full length in the second.
        #expect(secondParts[1].pts == 47_104 - 48_000 && secondParts[1].duration == 1024)
    }

    /// A boundary on a frame's edge: the first file ends with the frame before it, whole; the second begins
    /// with that frame as its overlap (1 024 samples trimmed, as an encoder's priming).
    @Test func aBoundaryOnAFramesEdge() {
        var router = SegmentRouter<RecordingFile>()
        let first = RecordingFile(at: 0)
        router.add(first)
        first.end = SegmentBoundaries.Boundary(slot: 6, sample: 10_240)
        let second = RecordingFile(at: 6, sample: 10_240)
        router.add(second)
        let before = router.routeAudio(pts: 8192, duration: 1024, frameSize: 1024)
        #expect(before.count == 1 && before[0].file === first)
        let edge = router.routeAudio(pts: 9216, duration: 1024, frameSize: 1024)
        #expect(edge.count == 2 && edge[0].isLast && edge[0].duration == 1024 && edge[0].samples == 1024)
        #expect(edge[1].file === second && edge[1].pts == -1024 && edge[1].samples == 0 && !edge[1].isLast)
        edge[0].file.audioEnded = true
        let after = router.routeAudio(pts: 10_240, duration: 1024, frameSize: 1024)
        #expect(after.count == 1 && after[0].file === second && after[0].pts == 0 && after[0].samples == 1024)
    }
}
