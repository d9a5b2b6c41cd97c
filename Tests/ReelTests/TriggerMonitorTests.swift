@testable import Reel
import Testing

/// The trigger's timing rules on simulated measurements, its motion measure on made-up luma grids, and how a
/// movie's end follows the events it holds.
@Suite struct TriggerMonitorTests {
    /// Measures at 30 a second from 0 to `until`, holding inside `spans`.
    static func run(_ monitor: inout TriggerMonitor, until: Double, holding spans: [ClosedRange<Double>]) -> [TriggerMonitor.Change] {
        var changes: [TriggerMonitor.Change] = []
        for frame in 0..<Int(until * 30) {
            let time = Double(frame) / 30
            changes += monitor.measure(at: time, holds: spans.contains { $0.contains(time) })
        }
        return changes + monitor.finish()
    }

    @Test func anEventStartsWhereItsConditionBeganOnceItHasLasted() {
        var monitor = TriggerMonitor(kind: .motion)
        let changes = TriggerMonitorTests.run(&monitor, until: 10, holding: [4...6])
        #expect(changes.count == 2)
        guard case .started(let started)? = changes.first, case .ended(let ended)? = changes.last else { return }
        #expect(started.start == 4 && started.end == nil)
        #expect(ended.start == 4 && abs(ended.end! - 6) < 1.0 / 30 + 1e-9)
    }

    @Test func shortBurstsFireNothingAndShortBreaksDoNotEndAnEvent() {
        var flicker = TriggerMonitor(kind: .motion)
        #expect(TriggerMonitorTests.run(&flicker, until: 10, holding: [2...2.3, 5...5.4]).isEmpty)
        var speech = TriggerMonitor(kind: .sound)
        // Words with pauses under a second between them: one event.
        let changes = TriggerMonitorTests.run(&speech, until: 12, holding: [2...3, 3.6...4.5, 5.2...6])
        #expect(changes.count == 2)
        #expect(speech.events == [TriggerEvent(kind: .sound, start: 2, end: 6)])
    }

    @Test func anEventStillOnAtTheEndEndsAtItsLastMoment() {
        var monitor = TriggerMonitor(kind: .sound)
        _ = TriggerMonitorTests.run(&monitor, until: 5, holding: [3...10])
        #expect(monitor.events.count == 1 && monitor.events[0].start == 3)
        #expect(abs(monitor.events[0].end! - (5 - 1.0 / 30)) < 1e-9)
    }

    @Test func motionIsALocalChangeNotTheWholePictureChangingLight() {
        let still = [Float](repeating: 0.5, count: 64 * 36)
        var brighter = still.map { $0 + 0.3 }  // a light switched on: every spot changes alike
        #expect(MotionMeasure.changedShare(brighter, previous: still) == 0)
        for index in 0..<(64 * 4) { brighter[index] = 0.1 }  // and something dark moves across the top
        #expect(abs(MotionMeasure.changedShare(brighter, previous: still) - 4.0 / 36) < 1e-9)
        var noisy = still
        for index in noisy.indices { noisy[index] += Float(index % 7) * 0.005 }  // noise well under the change asked
        #expect(MotionMeasure.changedShare(noisy, previous: still) == 0)
        #expect(MotionMeasure.changedShare([], previous: []) == 0)
    }

    @Test func aMovieEndsAPostRollAfterTheLastEventItHolds() {
        let on = TriggerEvent(kind: .motion, start: 4)
        #expect(TriggerSchedule.stop(of: [on], from: 0, postRoll: 1) == (nil, 1))
        let over = TriggerEvent(kind: .motion, start: 4, end: 6)
        #expect(TriggerSchedule.stop(of: [over], from: 0, postRoll: 1) == (7, 1))
        // A second event within the post-roll extends the movie; one after it is the next movie's.
        let within = TriggerEvent(kind: .sound, start: 6.5, end: 8)
        let later = TriggerEvent(kind: .motion, start: 20, end: 21)
        #expect(TriggerSchedule.stop(of: [over, within, later], from: 0, postRoll: 1) == (9, 2))
        #expect(TriggerSchedule.stop(of: [over, within, later], from: 2, postRoll: 1) == (22, 3))
    }

    @Test func rulesParseAndRefuseOutOfRangeValues() throws {
        #expect(try TriggerRule(parsing: "motion") == TriggerRule(kind: .motion, threshold: 0.02))
        #expect(try TriggerRule(parsing: "sound:-25") == TriggerRule(kind: .sound, threshold: -25))
        for bad in ["light", "motion:2", "sound:10", "sound:loud", "motion:"] {
            #expect(throws: ReelError.self, "\(bad)") { try TriggerRule(parsing: bad) }
        }
        #expect(throws: ReelError.self) { try TriggeredRecording(rules: []).validate() }
        #expect(throws: ReelError.self) { try TriggeredRecording(rules: [TriggerRule(kind: .motion), TriggerRule(kind: .motion)]).validate() }
        #expect(throws: ReelError.self) { try TriggeredRecording(rules: [TriggerRule(kind: .sound)], preRoll: 61).validate() }
    }
}
