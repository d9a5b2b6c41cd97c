@testable import Reel
import Testing

/// The alarms' timing rules on made-up levels and pictures: when each starts (its condition's start, once it
/// lasted the rule's seconds), when it ends, what a short lapse does, what is still on at the end.
@Suite struct AlarmMonitorTests {
    static func levels(_ time: Double, rms: Double, clipped: Int = 0) -> AudioLevels {
        AudioLevels(time: time, channels: [.init(rms: rms, peak: rms + 3, peakHold: rms + 3, clippedSamples: clipped),
                                           .init(rms: rms, peak: rms + 3, peakHold: rms + 3)])
    }

    @Test func silenceStartsWhenItBeganAndEndsWhenSoundComes() {
        var monitor = AlarmMonitor(rules: [AlarmRule(kind: .silence, threshold: -60, seconds: 2)])
        var changes: [AlarmMonitor.Change] = []
        for step in 1...60 {
            let time = Double(step) / 10
            // Quiet from 1.0 s (the update at 1.1 is the first whose block is quiet) to 4.0 s.
            changes += monitor.sound(AlarmMonitorTests.levels(time, rms: time > 1.0 && time <= 4.0 ? -.infinity : -20))
        }
        guard changes.count == 2, case .started(let started) = changes[0], case .ended(let ended) = changes[1] else {
            Issue.record("\(changes)")
            return
        }
        #expect(abs(started.start - 1.05) < 1e-9 && started.end == nil)
        #expect(abs((ended.end ?? 0) - 4.05) < 1e-9 && monitor.alarms == [ended] && !monitor.isAlarming)
    }

    @Test func aLapseShorterThanTheSecondsIsNoAlarm() {
        var monitor = AlarmMonitor(rules: [AlarmRule(kind: .black, threshold: 0.1, seconds: 1)])
        var changes: [AlarmMonitor.Change] = []
        for frame in 0..<120 {
            let time = Double(frame) / 30
            // Black 0.5–1.4 s (0.9 s: no alarm), and from 2.0 s to the end (an alarm still on).
            let black = (time >= 0.5 && time < 1.4) || time >= 2.0
            changes += monitor.picture(.init(time: time, darkFraction: black ? 1 : 0.3, change: 0.1))
        }
        #expect(changes.count == 1 && monitor.isAlarming, "\(changes)")
        #expect(monitor.alarms.count == 1 && monitor.alarms[0].end == nil && abs(monitor.alarms[0].start - 2.0) < 1e-9)
    }

    @Test func frozenNeedsTwoPicturesAndNoChange() {
        var monitor = AlarmMonitor(rules: [AlarmRule(kind: .frozen, threshold: 0.002, seconds: 0.5)])
        var changes: [AlarmMonitor.Change] = []
        changes += monitor.picture(.init(time: 0, darkFraction: 0, change: nil))
        for frame in 1..<60 {
            let time = Double(frame) / 30
            changes += monitor.picture(.init(time: time, darkFraction: 0, change: frame >= 15 && frame < 45 ? 0.0005 : 0.05))
        }
        guard changes.count == 2, case .started(let started) = changes[0], case .ended(let ended) = changes[1] else {
            Issue.record("\(changes)")
            return
        }
        #expect(abs(started.start - 0.5) < 1e-9 && abs((ended.end ?? 0) - 1.5) < 1e-9)
    }

    @Test func clippingCountsAndEndsAfterItsQuietSeconds() {
        var monitor = AlarmMonitor(rules: [AlarmRule(kind: .clipping, seconds: 1)])
        var changes: [AlarmMonitor.Change] = []
        var clipped = 0
        for step in 1...40 {
            let time = Double(step) / 10
            if step == 5 || step == 6 || step == 12 { clipped += 100 }
            changes += monitor.sound(AlarmMonitorTests.levels(time, rms: -10, clipped: clipped))
        }
        guard changes.count == 2, case .started(let started) = changes[0], case .ended(let ended) = changes[1] else {
            Issue.record("\(changes)")
            return
        }
        #expect(abs(started.start - 0.4) < 1e-9 && abs((ended.end ?? 0) - 1.2) < 1e-9, "\(started) \(ended)")
        #expect(ended.clippedSamples == 300)
    }
}
