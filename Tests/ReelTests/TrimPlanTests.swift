import QuickTime
@testable import Reel
import Testing

/// The trim plan on simulated x264 output (LiveSegmenterTests.pictures: 90 pictures at 30 fps, a keyframe every
/// 30, B-frames decoded after the picture shown after them; presentation time = picture number).
@Suite struct TrimPlanTests {
    static let samples = LiveSegmenterTests.pictures(90, gop: 30)
    static let groups = TrimPlan.groups(samples)

    /// The pictures a plan keeps, by presentation time: the head's and tail's kept ones, and every copied one.
    static func kept(_ plan: TrimPlan, _ samples: [Sample] = samples) -> [Int64] {
        func part(_ part: TrimPlan.Part?) -> [Int64] {
            guard let part else { return [] }
            return part.decoded.map { samples[$0].presentationTime }.filter { $0 >= part.firstKept && $0 <= part.lastKept }
        }
        let copied = plan.copied.map { range in range.map { samples[$0].presentationTime } } ?? []
        return (part(plan.head) + copied + part(plan.tail)).sorted()
    }

    @Test func atKeyframesEverythingIsCopied() throws {
        let plan = try TrimPlan(samples: Self.samples, from: 30, to: 60, mode: .smart)
        #expect(plan.head == nil && plan.tail == nil && plan.copied == Self.groups[1])
        #expect(plan.pictureCount == 30 && plan.firstPicture == 30 && plan.lastPicture == 59 && plan.end == 60)
    }

    @Test func oneFrameAfterAKeyframeReencodesThatGroup() throws {
        let plan = try TrimPlan(samples: Self.samples, from: 31, to: 60, mode: .smart)
        #expect(plan.head == TrimPlan.Part(decoded: Self.groups[1], firstKept: 31, lastKept: 59))
        #expect(plan.copied == nil && plan.tail == nil && plan.pictureCount == 29)
    }

    @Test func oneFrameBeforeAtBothEnds() throws {
        let plan = try TrimPlan(samples: Self.samples, from: 29, to: 61, mode: .smart)
        #expect(plan.head == TrimPlan.Part(decoded: Self.groups[0], firstKept: 29, lastKept: 29))
        #expect(plan.copied == Self.groups[1])
        #expect(plan.tail == TrimPlan.Part(decoded: Self.groups[2], firstKept: 60, lastKept: 60))
        #expect(plan.pictureCount == 32)
    }

    @Test func midGroupAtBothEnds() throws {
        let plan = try TrimPlan(samples: Self.samples, from: 15, to: 75, mode: .smart)
        #expect(plan.head == TrimPlan.Part(decoded: Self.groups[0], firstKept: 15, lastKept: 29))
        #expect(plan.copied == Self.groups[1])
        #expect(plan.tail == TrimPlan.Part(decoded: Self.groups[2], firstKept: 60, lastKept: 74))
        #expect(Self.kept(plan) == Array(15..<75))
    }

    @Test func oneFrameAndTheWholeFile() throws {
        let one = try TrimPlan(samples: Self.samples, from: 40, to: 41, mode: .smart)
        #expect(one.head == TrimPlan.Part(decoded: Self.groups[1], firstKept: 40, lastKept: 40) && one.copied == nil && one.tail == nil)
        #expect(one.pictureCount == 1 && one.end == 41)
        let keyframe = try TrimPlan(samples: Self.samples, from: 30, to: 31, mode: .smart)
        #expect(keyframe.head == nil && keyframe.copied == nil && keyframe.tail == TrimPlan.Part(decoded: Self.groups[1], firstKept: 30, lastKept: 30))
        let whole = try TrimPlan(samples: Self.samples, from: 0, to: 90, mode: .smart)
        #expect(whole.head == nil && whole.tail == nil && whole.copied == 0..<90 && whole.pictureCount == 90)
        let past = try TrimPlan(samples: Self.samples, from: 0, to: 500, mode: .smart)
        #expect(past == whole)
    }

    /// Every span of the 90 pictures: exactly its pictures, each once; parts decode from a keyframe; the copied
    /// part is whole groups.
    @Test func everySpanKeepsExactlyItsPictures() throws {
        let starts = Set(Self.groups.map(\.lowerBound)), ends = Set(Self.groups.map(\.upperBound))
        for from in Int64(0)..<90 {
            for to in (from + 1)...90 {
                let plan = try TrimPlan(samples: Self.samples, from: from, to: to, mode: .smart)
                #expect(Self.kept(plan) == Array(from..<to), "\(from)..<\(to): \(plan)")
                for part in [plan.head, plan.tail].compactMap({ $0 }) {
                    #expect(Self.samples[part.decoded.lowerBound].isKeyframe)
                }
                if let copied = plan.copied { #expect(starts.contains(copied.lowerBound) && ends.contains(copied.upperBound)) }
            }
        }
    }

    @Test func exactAndKeyframeModes() throws {
        let exact = try TrimPlan(samples: Self.samples, from: 15, to: 75, mode: .exact)
        #expect(exact.head == TrimPlan.Part(decoded: 0..<90, firstKept: 15, lastKept: 74) && exact.copied == nil && exact.tail == nil)
        #expect(Self.kept(exact) == Array(15..<75))
        let keyframes = try TrimPlan(samples: Self.samples, from: 15, to: 75, mode: .keyframes)
        #expect(keyframes.head == nil && keyframes.tail == nil && keyframes.copied == 0..<90)
        #expect(keyframes.firstPicture == 0 && keyframes.lastPicture == 89 && keyframes.pictureCount == 90)
        let inside = try TrimPlan(samples: Self.samples, from: 31, to: 59, mode: .keyframes)
        #expect(inside.copied == Self.groups[1] && inside.firstPicture == 30 && inside.end == 60)
    }

    /// The picture on screen at `from` starts the span, with times finer than the pictures (2 ticks each).
    @Test func theFirstPictureIsTheOneOnScreenAtFrom() throws {
        let samples = Self.samples.map { sample in
            Sample(decodeTime: sample.decodeTime * 2, presentationOffset: sample.presentationOffset * 2, duration: 2, size: 10,
                   isKeyframe: sample.isKeyframe)
        }
        let plan = try TrimPlan(samples: samples, from: 31, to: 40, mode: .smart)
        #expect(plan.firstPicture == 30 && plan.lastPicture == 38 && plan.end == 40 && plan.pictureCount == 5)
        #expect(Self.kept(plan, samples) == [30, 32, 34, 36, 38])
    }

    @Test func emptySpansAreRefused() {
        #expect(throws: TrimPlan.Failure.emptySpan(trackEnd: 90)) { try TrimPlan(samples: Self.samples, from: 40, to: 40, mode: .smart) }
        #expect(throws: TrimPlan.Failure.emptySpan(trackEnd: 90)) { try TrimPlan(samples: Self.samples, from: 50, to: 20, mode: .smart) }
        #expect(throws: TrimPlan.Failure.emptySpan(trackEnd: 90)) { try TrimPlan(samples: Self.samples, from: 90, to: 95, mode: .smart) }
        #expect(throws: TrimPlan.Failure.noPictures) { try TrimPlan(samples: [], from: 0, to: 1, mode: .smart) }
        #expect(throws: TrimPlan.Failure.noKeyframeAtStart) { try TrimPlan(samples: Array(Self.samples.dropFirst()), from: 0, to: 10, mode: .smart) }
    }

    /// An open group (a picture shown before its keyframe, decoded after it) cannot start a copy: smart becomes exact.
    @Test func anOpenGroupMakesTheCutExact() throws {
        var samples = Self.samples
        // Group 2's keyframe is shown at 61; picture 60, decoded right after it, is shown before it.
        let key = Self.groups[2].lowerBound
        samples[key].presentationOffset += 1
        samples[key + 1] = Sample(decodeTime: samples[key + 1].decodeTime, presentationOffset: 60 - samples[key + 1].decodeTime,
                                  duration: 1, size: 10, isKeyframe: false)
        let plan = try TrimPlan(samples: samples, from: 15, to: 75, mode: .smart)
        #expect(plan.mode == .exact && plan.note != nil && plan.copied == nil)
        let early = try TrimPlan(samples: samples, from: 5, to: 25, mode: .smart)
        #expect(early.mode == .smart && early.note == nil)
    }

    // MARK: sound

    /// AAC frames of 1024 samples, the first (priming) from -1024, 48 kHz.
    static let frames = (0..<100).map { Sample(decodeTime: Int64($0 - 1) * 1024, duration: 1024, size: 5, isKeyframe: true) }

    @Test func soundStartsAFrameEarlyAndSkipsToTheSpan() throws {
        // 0.5 s to 1.5 s: 24000 is inside frame 23 (23552..<24576), whose warm-up is frame 22.
        let plan = try #require(AudioTrimPlan(frames: Self.frames, start: 24_000, end: 72_000))
        #expect(plan.frames.lowerBound == 24 - 1 && Self.frames[plan.frames.lowerBound].presentationTime == 22 * 1024)
        #expect(plan.skip == 24_000 - 22 * 1024 && plan.duration == 48_000)
        let last = Self.frames[plan.frames.upperBound - 1]
        #expect(last.presentationTime < 72_000 && last.presentationTime + 1024 >= 72_000)
    }

    @Test func soundFromTheStartKeepsThePriming() throws {
        let plan = try #require(AudioTrimPlan(frames: Self.frames, start: 0, end: 1000))
        #expect(plan.frames == 0..<2 && plan.skip == 1024 && plan.duration == 1000)
    }

    @Test func soundShorterThanThePicturesEndsWithIt() throws {
        let soundEnd = Int64(99 * 1024)
        let plan = try #require(AudioTrimPlan(frames: Self.frames, start: 90_000, end: 200_000))
        #expect(plan.frames.upperBound == 100 && plan.duration == soundEnd - 90_000)
        #expect(AudioTrimPlan(frames: Self.frames, start: soundEnd, end: soundEnd + 10) == nil)
        #expect(AudioTrimPlan(frames: [], start: 0, end: 10) == nil)
    }

    /// What re-encoded parts take from the input's samples: each picture's time on screen (to the next picture;
    /// the last, its own duration) and the decode delay x264 gave the stream (which parts between copied
    /// pictures keep, so decode times run on across the joins).
    @Test func durationsAndDecodeDelayOfTheInput() {
        let durations = Trimmer.shownDurations(Self.samples)
        #expect(durations.count == 90 && durations.values.allSatisfy { $0 == 1 })
        let uneven = [Sample(decodeTime: -2, presentationOffset: 2, duration: 3, size: 1, isKeyframe: true),
                      Sample(decodeTime: 1, presentationOffset: 6, duration: 4, size: 1, isKeyframe: false),
                      Sample(decodeTime: 5, presentationOffset: -2, duration: 4, size: 1, isKeyframe: false)]
        #expect(Trimmer.shownDurations(uneven) == [0: 3, 3: 4, 7: 4])
        #expect(Trimmer.decodeDelay(uneven, pictureTicks: 1) == 2 && Trimmer.decodeDelay(uneven, pictureTicks: 2) == 1)
        #expect(Trimmer.decodeDelay(Self.samples, pictureTicks: 1) == Int(Self.samples[0].presentationOffset))
        #expect(Trimmer.decodeDelay([], pictureTicks: 1) == 0)
    }
}
