@testable import Reel
import Testing

/// The pure bookkeeping behind the movie's timeline: VideoCadence (constant-rate slots) and
/// TimestampContinuity (splices glued).
@Suite struct TimelineTests {
    /// Feeds pictures at `times` (in output frames) and returns, for each output slot, which picture it shows.
    static func schedule(_ times: [Double]) -> [Int] {
        var cadence = VideoCadence()
        var shown: [Int] = []
        for (index, time) in times.enumerated() {
            let slots = cadence.arrive(time: time)
            #expect(slots.lowerBound == Int64(shown.count), "no holes")
            shown += Array(repeating: index - 1, count: slots.count)
        }
        shown += Array(repeating: times.count - 1, count: cadence.finish().count)
        return shown
    }

    @Test func sameRateShowsEachPictureOnce() {
        #expect(Self.schedule((0..<10).map(Double.init)) == Array(0..<10))
    }

    @Test func twiceTheRateKeepsEveryOtherPicture() {
        // 60 fps into 30: picture k at k/2 frames; halves round up, so slot n ends with picture 2n: 0, 2, 4, ...
        #expect(Self.schedule((0..<12).map { Double($0) / 2 }) == [0, 2, 4, 6, 8, 10])
    }

    @Test func slowerSourcesRepeatEvenly() {
        // 24 fps into 30: one picture in four is shown twice.
        #expect(Self.schedule((0..<8).map { Double($0) * 1.25 }) == [0, 1, 1, 2, 3, 4, 5, 5, 6, 7])
        // 15 fps into 30: every picture twice, the last one too.
        #expect(Self.schedule((0..<4).map { Double($0) * 2 }) == [0, 0, 1, 1, 2, 2, 3, 3])
    }

    @Test func aStallBeforeTheLastPictureDoesNotLengthenIt() {
        // A live source that stalled for 20 frames before its last picture: that picture lasts one frame.
        #expect(Self.schedule([0, 1, 2, 22]) == [0, 1] + Array(repeating: 2, count: 20) + [3])
    }

    @Test func aStopExtendsTheLastPictureToTheAudiosEnd() {
        var cadence = VideoCadence()
        for time in 0..<3 { _ = cadence.arrive(time: Double(time)) }
        // The last picture (slot 2) lasts to slot 5, where the audio ends; an earlier end changes nothing.
        #expect(cadence.finish(atLeast: 5) == 2..<5)
        var unchanged = VideoCadence()
        for time in 0..<3 { _ = unchanged.arrive(time: Double(time)) }
        #expect(unchanged.finish(atLeast: 1) == 2..<3)
    }

    @Test func aLateFirstPictureFillsTheSlotsBeforeIt() {
        #expect(Self.schedule([3, 4, 5]) == [0, 0, 0, 0, 1, 2])
    }

    @Test func microsecondRoundingStillCountsAsHalf() {
        // 60 fps timestamps in microseconds: 83,333 µs is 2.49999 frames at 30 fps, meant as 2.5.
        #expect(VideoCadence.slot(ofFrames: 2.49999) == 3)
        #expect(VideoCadence.slot(ofFrames: 2.4990) == 2)
        #expect(VideoCadence.slot(ofFrames: -0.2) == 0)
    }

    @Test func aSinglePictureIsShownOnce() {
        #expect(Self.schedule([0]) == [0])
        #expect(Self.schedule([]) == [])
    }

    @Test func backwardJumpsAreGluedEverywhere() {
        var continuity = TimestampContinuity(gluesForwardJumps: false)
        let step: Int64 = 33_333
        var out: [Int64] = []
        for raw in [100_000_000, 100_033_333, 100_066_666, 6_000_000, 6_033_333] as [Int64] {
            out.append(continuity.continuous(raw, duration: step))
        }
        #expect(out == [100_000_000, 100_033_333, 100_066_666, 100_099_999, 100_133_332])
        #expect(continuity.jumps == 1)
    }

    @Test func forwardJumpsAreGluedOnlyWhereTheFormatAllowsSplices() {
        for glues in [true, false] {
            var continuity = TimestampContinuity(gluesForwardJumps: glues)
            _ = continuity.continuous(0, duration: 0)
            _ = continuity.continuous(40_000, duration: 0)
            let leap = continuity.continuous(600_000_000, duration: 0)
            #expect(leap == (glues ? 80_000 : 600_000_000))
            // A short hole (a second) is a real gap in both.
            #expect(continuity.continuous(601_000_000, duration: 0) == leap + 1_000_000)
        }
    }

    @Test func leapsOfMoreThanAnHourAreGluedInEveryFormat() {
        var continuity = TimestampContinuity(gluesForwardJumps: false)
        _ = continuity.continuous(0, duration: 40_000)
        #expect(continuity.continuous(9_000_000_000_000, duration: 40_000) == 40_000)
        #expect(continuity.continuous(Int64.max - 5, duration: 40_000) == 80_000, "no overflow at the edge")
    }

    @Test func slotsOfAbsurdTimesAreClamped() {
        #expect(VideoCadence.slot(ofFrames: 1e300) == Int64(4e18))
        #expect(VideoCadence.slot(ofFrames: -.infinity) == Int64(-4e18))
        #expect(VideoCadence.slot(ofFrames: .nan) == 0)
    }

    @Test func smallJitterIsLeftAlone() {
        var continuity = TimestampContinuity(gluesForwardJumps: true)
        _ = continuity.continuous(1_000_000, duration: 40_000)
        #expect(continuity.continuous(1_030_000, duration: 40_000) == 1_030_000)
        #expect(continuity.jumps == 0)
    }
}
