import QuickTime
@testable import Reel
import Testing

/// The replay window on simulated encoder output (LiveSegmenterTests.pictures: x264-like pictures at 30 fps
/// whose B-frames decode after the picture shown after them, a keyframe every 2 s; AAC at 48 kHz). Payloads
/// are packet numbers (pictures: their presentation slot; sound: 1,000,000 + the frame's first sample).
@Suite struct ReplayWindowTests {
    static let video = TimeBase(1, 30)
    static let audio = TimeBase(1, 48_000)

    static func window(keep: Double, maxBytes: Int = 1 << 30, audio: Bool = true) -> ReplayWindow<Int> {
        ReplayWindow(keepSeconds: keep, maxBytes: maxBytes, videoTimeBase: video, audioTimeBase: audio ? ReplayWindowTests.audio : nil)
    }

    /// Feeds `frames` pictures in decode order and the sound up to the pictures sent.
    static func feed(_ window: inout ReplayWindow<Int>, frames: Int, audio: Bool = true, soundLag: Int64 = 0) -> [Int] {
        var gone: [Int] = []
        var next: Int64 = -1024
        for picture in LiveSegmenterTests.pictures(frames) {
            gone += window.appendVideo(picture, Int(picture.presentationTime))
            let until = (picture.decodeTime + 1 - soundLag) * 1600
            while audio && next + 1024 <= until {
                gone += window.appendAudio(Sample(decodeTime: next, duration: 1024, size: 5, isKeyframe: true), 1_000_000 + Int(next))
                next += 1024
            }
        }
        return gone
    }

    @Test func keepsWholeGroupsForTheSecondsAsked() {
        var window = ReplayWindowTests.window(keep: 4)
        let gone = ReplayWindowTests.feed(&window, frames: 300)
        #expect(window.video.first?.sample.isKeyframe == true)
        #expect(window.video.first?.sample.presentationTime == 180)  // 6 s: the groups after it still hold 4 s
        #expect(window.heldSeconds >= 4 && window.heldSeconds < 6 + 1.0 / 30)
        // Everything before the first kept group went, pictures and sound alike; no sound before its priming.
        #expect(gone.filter { $0 < 500_000 }.sorted() == Array(0..<180))
        let firstSound = window.audio.first!.sample.presentationTime
        #expect(firstSound <= 6 * 48_000 - 1024 && firstSound > 6 * 48_000 - 3 * 1024)
    }

    @Test func theByteBoundDropsTheOldestGroupsButNeverTheNewest() {
        // 10 bytes a picture, 5 a sound frame: a 2 s group with its sound is about 1,070 bytes.
        var window = ReplayWindowTests.window(keep: 60, maxBytes: 2_500)
        _ = ReplayWindowTests.feed(&window, frames: 300)
        #expect(window.bytes <= 2_500)
        #expect(window.video.first?.sample.presentationTime == 180)  // two groups fit, three would not
        var tiny = ReplayWindowTests.window(keep: 60, maxBytes: 100)
        _ = ReplayWindowTests.feed(&tiny, frames: 300)
        #expect(tiny.video.first?.sample.presentationTime == 240)  // one group, over the bound: kept
    }

    @Test func aCutStartsOnAKeyframeAndRunsWithoutAHoleToThePictureAsked() throws {
        var window = ReplayWindowTests.window(keep: 30)
        _ = ReplayWindowTests.feed(&window, frames: 250)
        // The newest pictures are out of order at the end (B-frames still to come): through 240 is complete.
        let cut = try #require(window.cut(seconds: 3, through: 240))
        let shown = cut.video.map(\.sample.presentationTime).sorted()
        #expect(cut.video.first?.sample.isKeyframe == true)
        #expect(shown == Array(shown.first!...shown.last!))
        #expect(shown.last! >= 240 && shown.last! <= 242)
        #expect(cut.start == 120)  // the latest keyframe at least 3 s before the end (8.1 s): 3 s asked, 2 s groups
        #expect(cut.seconds >= 3 && cut.seconds < 3 + 2)
        #expect(Double(cut.end - cut.start) / 30 == cut.seconds)
        // The sound: one frame before the one covering the first picture, up to the last picture's end.
        let audioStart = cut.audioStart
        #expect(audioStart == 120 * 1600)
        #expect(cut.audio.first!.sample.presentationTime <= audioStart - 1024)
        #expect(cut.audio[1].sample.presentationTime <= audioStart && cut.audio[2].sample.presentationTime > audioStart)
        #expect(cut.audio.last!.sample.presentationTime < cut.end * 1600)
        #expect(cut.audio.last!.sample.presentationTime + 1024 >= cut.end * 1600)
    }

    @Test func aCutWaitsForPicturesAndSoundStillInTheEncoders() {
        var window = ReplayWindowTests.window(keep: 30)
        _ = ReplayWindowTests.feed(&window, frames: 100, soundLag: 3)
        #expect(window.cut(seconds: nil, through: 120) == nil)  // not out of the encoder yet
        #expect(window.cut(seconds: nil, through: 95) == nil)  // the pictures are, their sound not yet
        #expect(window.cut(seconds: nil, through: 120, final: true) != nil)  // taking what there is
        var ended = window
        ended.end()
        let all = ended.cut(seconds: nil, through: nil)
        #expect(all?.video.count == 100)
        #expect(all?.start == 0)
    }

    @Test func everythingHeldWhenNoSecondsAreAskedOrTheBufferHoldsLess() throws {
        var window = ReplayWindowTests.window(keep: 30)
        _ = ReplayWindowTests.feed(&window, frames: 200)
        let cut = try #require(window.cut(seconds: 60, through: 150))
        #expect(cut.start == 0)
        #expect(try #require(window.cut(seconds: nil, through: 150)).start == 0)
    }

    @Test func aGapClearsWhatNoLongerRunsOn() {
        var window = ReplayWindowTests.window(keep: 30)
        _ = ReplayWindowTests.feed(&window, frames: 90)
        let gone = window.clear()
        #expect(gone.count > 90)
        #expect(window.video.isEmpty && window.audio.isEmpty && window.bytes == 0)
        // It fills again from the next keyframe only.
        #expect(window.appendVideo(Sample(decodeTime: 0, duration: 1, size: 10, isKeyframe: false), 7) == [7])
        #expect(window.video.isEmpty)
    }

    @Test func soundAloneIsKeptByTimeAndCutWithItsPriming() throws {
        var window = ReplayWindow<Int>(keepSeconds: 2, maxBytes: 1 << 30, videoTimeBase: nil, audioTimeBase: ReplayWindowTests.audio)
        for frame in 0..<400 {
            _ = window.appendAudio(Sample(decodeTime: Int64(frame * 1024 - 1024), duration: 1024, size: 5, isKeyframe: true), frame)
        }
        #expect(window.heldSeconds >= 2 && window.heldSeconds < 2 + 3 * 1024.0 / 48_000)
        let cut = try #require(window.cut(seconds: 1, through: nil))
        #expect(cut.seconds >= 1 && cut.seconds < 1 + 1024.0 / 48_000)
        #expect(cut.audio.first!.sample.presentationTime == cut.start - 1024)
        #expect(cut.end == 399 * 1024)
    }
}
