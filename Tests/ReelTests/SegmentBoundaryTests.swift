import Foundation
import FFmpegCore
@testable import Reel
import Testing

/// The pure parts of segmenting: where boundaries fall (frames and samples), when a size-limited segment is
/// cut, how segments are named, and which files loop recording deletes.
@Suite struct SegmentBoundaryTests {
    @Test func durationBoundariesAreExactFramesAndTheirSamples() {
        let at30 = SegmentBoundaries(frameRate: Rational(30, 1), sampleRate: 48000)
        #expect(at30.durationBoundary(index: 1, seconds: 10) == .init(slot: 300, sample: 480_000))
        #expect(at30.durationBoundary(index: 7, seconds: 10) == .init(slot: 2100, sample: 3_360_000))
        // 1.5 s at 30 fps: 45 frames each; 44.1 kHz: 66150 samples each.
        let cd = SegmentBoundaries(frameRate: Rational(30, 1), sampleRate: 44100)
        #expect(cd.durationBoundary(index: 2, seconds: 1.5) == .init(slot: 90, sample: 132_300))
        // NTSC 29.97: 10 s is 299.7 frames, so segments take 300 or 299 frames and never drift.
        let ntsc = SegmentBoundaries(frameRate: Rational(30000, 1001), sampleRate: 48000)
        let slots = (0...10).map { ntsc.durationBoundary(index: $0, seconds: 10).slot }
        let lengths = zip(slots, slots.dropFirst()).map { $1 - $0 }
        #expect(Set(lengths).isSubset(of: [299, 300]) && slots.last == 2997, "\(slots)")
        // Frame 300 at 29.97 fps starts at 10.01 s: sample 480480.
        #expect(ntsc.boundary(atSlot: 300).sample == 480_480)
    }

    @Test func aCutDecidedNowFallsAfterWhatIsAlreadyEncoded() {
        let boundaries = SegmentBoundaries(frameRate: Rational(30, 1), sampleRate: 48000)
        // Pictures sent up to slot 99; audio encoded up to sample 160,000 (slot 100's instant): slot 100.
        #expect(boundaries.earliestCut(nextSlot: 100, audioEncodedUntil: 160_000).slot == 100)
        // Audio ahead of the pictures: the cut waits for the first slot at or after the audio.
        let cut = boundaries.earliestCut(nextSlot: 100, audioEncodedUntil: 161_000)
        #expect(cut.slot == 101 && cut.sample == 161_600)
        #expect(boundaries.earliestCut(nextSlot: 5, audioEncodedUntil: nil) == .init(slot: 5, sample: 8000))
    }

    @Test func aSizeCutLeavesRoomForThePicturesInFlight() {
        var cut = SegmentSizeCut(size: 2_000_000)
        for _ in 0..<40 { cut.note(videoPacketBytes: 20_000, isKeyframe: false) }
        cut.note(videoPacketBytes: 40_000, isKeyframe: true)
        #expect(abs(cut.averagePicture - 20_000) < 1e-6 && cut.lastKeyframe == 40_000)
        // 10 pictures in flight (and the one being sent) at 1.25 × 20 kB, a keyframe, 500 B audio each, 4 KiB.
        let reserve = cut.reserve(picturesInFlight: 10, audioBytesPerPicture: 500)
        #expect(reserve == 11 * 25_500 + 40_000 + 4096)
        #expect(!cut.mustCut(projected: 2_000_000 - reserve - 1, segmentPictures: 60, picturesInFlight: 10, audioBytesPerPicture: 500))
        #expect(cut.mustCut(projected: 2_000_000 - reserve, segmentPictures: 60, picturesInFlight: 10, audioBytesPerPicture: 500))
        // Not while the file holds no more pictures than were in flight at its start: that would leave a runt.
        #expect(!cut.mustCut(projected: 2_000_000, segmentPictures: 10, picturesInFlight: 10, audioBytesPerPicture: 500))
        #expect(cut.mustCut(projected: 2_000_000, segmentPictures: 11, picturesInFlight: 10, audioBytesPerPicture: 500))
    }

    /// A burst of detail counts as soon as its first pictures are out: the recent pictures' mean, not the
    /// slow average, sizes the pictures still in flight.
    @Test func aBurstOfDetailRaisesTheReserveAtOnce() {
        var cut = SegmentSizeCut(size: 2_000_000)
        for _ in 0..<40 { cut.note(videoPacketBytes: 2_000, isKeyframe: false) }
        let calm = cut.reserve(picturesInFlight: 10, audioBytesPerPicture: 0)
        #expect(calm == 11 * 2_500 + 4096)
        for _ in 0..<4 { cut.note(videoPacketBytes: 20_000, isKeyframe: false) }
        // The last 8: four of 20 kB, four of 2 kB (mean 11 kB); the slow average has moved only to about 4.3 kB.
        #expect(cut.recentMean == 11_000 && cut.averagePicture < 5_000)
        #expect(cut.reserve(picturesInFlight: 10, audioBytesPerPicture: 0) == 11 * 13_750 + 4096)
        // A keyframe counts once, whatever its size, and not in the mean.
        cut.note(videoPacketBytes: 90_000, isKeyframe: true)
        #expect(cut.recentMean == 11_000 && cut.reserve(picturesInFlight: 10, audioBytesPerPicture: 0) == 11 * 13_750 + 90_000 + 4096)
    }

    /// Without video: four AAC frames (the encoder's delay and one) and a fragment's header are still to come.
    @Test func anAudioOnlyCutLeavesRoomForTheFramesInTheEncoder() {
        let cut = SegmentSizeCut(size: 140_000)
        // 128 kb/s, 1024-sample frames at 48 kHz: 341.33 bytes each.
        let frame = 128_000.0 / 8 * 1024 / 48_000
        #expect(!cut.mustCut(projected: 140_000 - 1365 - 4096 - 1, audioFrameBytes: frame))
        #expect(cut.mustCut(projected: 140_000 - 1365 - 4096, audioFrameBytes: frame))
    }

    @Test func segmentNames() {
        let indexed = SegmentNaming(template: "/rec/lecture-{date}-{index}.mov")
        #expect(indexed.path(index: 7, localDate: "2026-11-30", localTime: "14-05-09") == "/rec/lecture-2026-11-30-007.mov")
        #expect(indexed.path(index: 1234, localDate: "d", localTime: "t") == "/rec/lecture-d-1234.mov")
        // Without {index}, the number goes before the extension, not before a dot in a folder's name.
        #expect(SegmentNaming(template: "/a.b/cam.mov").path(index: 2, localDate: "", localTime: "") == "/a.b/cam-002.mov")
        #expect(SegmentNaming(template: "/a.b/cam").path(index: 2, localDate: "", localTime: "") == "/a.b/cam-002")
        #expect(SegmentNaming(template: "{time}.mov").path(index: 3, localDate: "", localTime: "14-05-09") == "14-05-09-003.mov")
        #expect(SegmentNaming.hasFields("x-{date}.mov") && !SegmentNaming.hasFields("x.mov"))
    }

    @Test func retentionDeletesOnlyItsOwnOldestFinishedSegments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-retention-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = (1...5).map { "\(folder)/s-\($0).mov" }
        for path in paths + ["\(folder)/other.mov"] { _ = FileManager.default.createFile(atPath: path, contents: Data([1])) }
        var retention = SegmentRetention(keep: 2)
        var deleted: [Int] = []
        for (index, path) in paths.enumerated() { deleted += retention.finished(result: index, path: path) }
        #expect(deleted == [0, 1, 2])
        #expect(paths.map { FileManager.default.fileExists(atPath: $0) } == [false, false, false, true, true])
        // Free space: the oldest kept one goes next; then none is left to delete.
        #expect(retention.deleteOldest() == 3 && retention.deleteOldest() == 4 && retention.deleteOldest() == nil)
        #expect(FileManager.default.fileExists(atPath: "\(folder)/other.mov"))
    }
}
