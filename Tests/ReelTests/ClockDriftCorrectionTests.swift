import Foundation
@testable import Reel
import Testing

/// ClockDriftCorrection on simulated devices: 1024-sample blocks delivered at the device's own rate, stamped
/// with the system clock (plus whatever disturbance a test adds), the samples produced squeezed by the rate
/// it asks for, as swresample would.
@Suite struct ClockDriftCorrectionTests {
    struct Run {
        /// Largest |error| (produced − system time) after `settled` seconds, in seconds.
        var worstError = 0.0
        var finalError = 0.0
        /// Largest |rate| asked for after `settled` seconds.
        var worstRate = 0.0
        var rates: [Double] = []
        var jumps: [ClockDriftCorrection.Action] = []
        var clockRate = 0.0
    }

    /// `clock`: device samples per system second over 48,000 (1.001: 0.1 % fast); `stamp`: the disturbance of
    /// the stamp at a system time, in seconds; `lostAt`: system times at which 0.2 s of samples are lost.
    static func simulate(seconds: Double, clock: Double, settled: Double = 5, lostAt: [Double] = [],
                         stamp: (Double) -> Double = { _ in 0 }) -> Run {
        let rate = 48_000.0
        var correction = ClockDriftCorrection(sampleRate: 48_000)
        var run = Run()
        var produced = 0.0
        var applied = 0.0
        var lost = lostAt
        var time = 0.0
        while time < seconds {
            if let next = lost.first, time >= next {
                lost.removeFirst()
                time += 0.2  // the device's samples of 0.2 s never arrive; its clock goes on
            }
            let elapsed = Int64(((time + stamp(time)) * rate).rounded())
            switch correction.update(produced: Int64(produced.rounded()), elapsed: elapsed, blockSamples: 1024) {
            case nil: break
            case .resample(let asked): applied = asked
            case let jump?: run.jumps.append(jump)
                if case .insertSilence(let count) = jump { produced += Double(count) }
                if case .drop(let count) = jump { produced -= Double(count) }
            }
            produced += 1024 * (1 - applied)
            time += 1024 / (rate * clock)
            let error = (produced - time * rate) / rate
            if time > settled {
                run.worstError = max(run.worstError, abs(error))
                run.worstRate = max(run.worstRate, abs(applied))
            }
            run.rates.append(applied)
            run.finalError = error
        }
        run.clockRate = correction.clockRate
        return run
    }

    @Test func anExactClockIsLeftAlone() {
        let run = Self.simulate(seconds: 60, clock: 1, stamp: { time in 0.003 * sin(time * 40) })
        #expect(run.rates.allSatisfy { $0 == 0 } && run.jumps.isEmpty)
        #expect(run.worstError < 0.005)
    }

    /// A 0.1 % fast clock: one correction learns its rate, which is then squeezed out continuously; the pitch
    /// never moves by more than the 0.1 % (plus the first correction's pull) and the error stays small.
    @Test func aSteadyDriftIsLearnedOnce() {
        let run = Self.simulate(seconds: 600, clock: 1.001, settled: 120)
        #expect(abs(run.clockRate - 0.001) < 0.0002, "learned \(run.clockRate)")
        #expect(run.worstRate < 0.0015, "after the first correction the rate stays near the clock's: \(run.worstRate)")
        #expect(run.worstError < 0.041 && abs(run.finalError) < 0.041, "\(run.worstError) s")
        #expect(run.jumps.isEmpty)
    }

    /// A 1.5 % fast clock (MicrophoneCaptureTests' device): the first correction learns most of its rate (the
    /// error's smoothing lags) and the pull holds the rest. The error counts from the true start: the settling
    /// second's 15 ms and the reference's quarter second after it (4 ms) stay in it, and it reaches about 40 ms
    /// more before the first correction.
    @Test func aFastClockIsFollowed() {
        let run = Self.simulate(seconds: 12, clock: 1.015, settled: 6)
        #expect(run.clockRate > 0.01 && run.clockRate < 0.02, "learned \(run.clockRate)")
        #expect(run.worstError < 0.065 && abs(run.finalError) < 0.035 && run.jumps.isEmpty,
                "\(run.worstError) s, final \(run.finalError) s, jumps \(run.jumps)")
    }

    /// A PulseAudio source's start: the first second's stamps run 0.34 s ahead of the samples, then settle
    /// 26 ms behind where they were at the end of it, and jitter by a few milliseconds. Nothing is corrected.
    @Test func aPulseAudioStartIsNotTakenForDrift() {
        let run = Self.simulate(seconds: 30, clock: 1, stamp: { time in
            if time < 1 { return 0.34 * time }
            let settle = min(1, max(0, (time - 1.2) / 0.5))
            return 0.34 - 0.026 * settle + 0.002 * sin(time * 50)
        })
        #expect(run.rates.allSatisfy { $0 == 0 } && run.jumps.isEmpty, "rates up to \(run.rates.map(abs).max() ?? 0), jumps \(run.jumps)")
    }

    /// Samples lost in an overrun: the hole is made up at once with silence, and not taken for the clock's rate.
    @Test func lostSamplesAreMadeUpWithSilence() {
        let run = Self.simulate(seconds: 30, clock: 1, lostAt: [10])
        #expect(run.jumps.count == 1)
        if case .insertSilence(let count)? = run.jumps.first { #expect(abs(count - 9_600) < 1_100, "\(count)") }
        else { Issue.record("expected silence, got \(run.jumps)") }
        #expect(run.clockRate == 0 && abs(run.finalError) < 0.041)
    }

    /// A reader starved on a busy machine: every 1.5 s it gets no CPU for 0.3 s, then reads what the device
    /// queued meanwhile all at once, every block stamped with the time it was read (late by up to 0.3 s, never
    /// early). Judged by the least late stamp of each quarter second, nothing is corrected; judged by each
    /// stamp, the late ones looked like audio falling behind: an exact clock was stretched by 2 % into audio
    /// 70 ms off, and a 1.5 % fast one was never learned (120 ms off).
    @Test func lateStampsOfAStarvedReaderAreNotTakenForDrift() {
        let starved = { (time: Double) -> Double in
            let phase = time.truncatingRemainder(dividingBy: 1.5)
            return phase < 0.3 ? 0.3 - phase : 0
        }
        let exact = Self.simulate(seconds: 60, clock: 1, stamp: starved)
        #expect(exact.jumps.isEmpty && exact.rates.allSatisfy { $0 == 0 }, "jumps \(exact.jumps), rates up to \(exact.rates.map(abs).max() ?? 0)")
        #expect(exact.worstError < 0.005, "\(exact.worstError) s")
        let fast = Self.simulate(seconds: 30, clock: 1.015, settled: 6, stamp: starved)
        #expect(fast.clockRate > 0.01 && fast.clockRate < 0.02 && fast.jumps.isEmpty, "learned \(fast.clockRate), jumps \(fast.jumps)")
        #expect(fast.worstError < 0.065 && abs(fast.finalError) < 0.035, "\(fast.worstError) s, final \(fast.finalError) s")
    }
}
