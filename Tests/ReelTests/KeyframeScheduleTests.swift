import FFmpegCore
@testable import Reel
import Testing

@Suite struct KeyframeScheduleTests {
    /// Pictures at 30 fps with 1 s fragments: a keyframe is forced at 1 s, 2 s ... (the first picture is one
    /// by itself), also when the picture at a boundary is missing (a repeat-free cadence gap).
    @Test func forcesTheFirstPictureOfEachFragment() {
        var schedule = KeyframeSchedule(interval: 1)
        let times = (0..<95).map { Double($0) / 30 }.filter { $0 < 1.99 || $0 > 2.05 }
        var forced: [Double] = []
        for (index, time) in times.enumerated() where schedule.forcesKeyframe(at: time, isFirst: index == 0) { forced.append(time) }
        #expect(forced.count == 3)
        #expect(abs(forced[0] - 1) < 1e-9 && abs(forced[1] - 62.0 / 30) < 1e-9 && abs(forced[2] - 3) < 1e-9)
    }

    @Test func noFragmentsForceNothing() {
        var schedule = KeyframeSchedule(interval: 0)
        var forced = 0
        for second in 0..<100 where schedule.forcesKeyframe(at: Double(second), isFirst: second == 0) { forced += 1 }
        #expect(forced == 0)
    }

    @Test func aMovieStartingMidwayGetsItsFirstKeyframeAtTheNextBoundary() {
        var schedule = KeyframeSchedule(interval: 2)
        var decisions: [Bool] = []
        for (time, first) in [(0.0, true), (1.9, false), (2.0, false), (2.1, false), (7.3, false), (7.9, false), (8.0, false)] {
            decisions.append(schedule.forcesKeyframe(at: time, isFirst: first))
        }
        // At 7.3 s, after a long gap, the next picture starts a fragment.
        #expect(decisions == [false, false, true, false, true, false, true])
    }

    /// A subscriber asks its encoder for a live stream's segment keyframes where a movie that encodes its own
    /// forces them: the grid's lines are the slots KeyframeSchedule forces, at 30, 29.97, 25 and 24 fps.
    @Test(arguments: [(Rational(30, 1), 2.0), (Rational(30000, 1001), 2.0), (Rational(25, 1), 0.5), (Rational(24, 1), 1.0 / 3)])
    func aSubscribersLiveGridIsTheScheduleOfAMovieThatEncodes(rate: Rational, seconds: Double) {
        var schedule = KeyframeSchedule(interval: seconds)
        let step = rate.inverted.doubleValue
        let forced = (0..<600).filter { slot in schedule.forcesKeyframe(at: Double(slot) * step, isFirst: slot == 0) }
        let grid = EncoderSubscription.KeyframeGrid.every(seconds, frameRate: rate)
        let lines = (1...forced.count).map { Int(grid.slot($0)) }
        #expect(lines == forced, "\(lines) \(forced)")
    }
}
