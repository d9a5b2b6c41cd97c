/// Keeps a live audio device on the system clock that times the pictures: a "48 kHz" card that delivers
/// 48,048 samples a second would put audio 3.6 s ahead of video after an hour. Pure bookkeeping, fed the
/// samples produced so far and the device's timestamps (system time of capture, in samples); it answers how
/// fast swresample should squeeze (positive) or stretch (negative) the audio, or a jump to make at once.
/// Unit-tested on simulated clocks in ClockDriftCorrectionTests.
///
/// - The device's first second of stamps is not compared: a PulseAudio source delivers its start in bursts
///   stamped up to 0.34 s ahead of the samples and then 26 ms behind; the offset the clocks have after that
///   second is the reference.
/// - Each block's error is the best of the last quarter second of audio (the least late stamp): a stamp is
///   taken when the reader gets the block, so a reader that ran late (a busy machine) stamps late, never
///   early; the blocks it then reads at once carry one time, and the last of them the true one. The late
///   stamps alone would look like audio falling behind, and be "corrected" into audio running ahead.
/// - The error (smoothed over half a second against the stamps' jitter) is left alone up to 40 ms (GStreamer's
///   alignment threshold): a PulseAudio source's stamps wander by tens of milliseconds as its latency settles.
/// - Past 40 ms a correction brings it back within 2 ms: the error is pulled back at itself over 5 s (40 ms:
///   0.8 %), on top of the clock's rate, and the total is at most 2 %. The clock's rate is learned when a
///   correction starts, from how fast the error grew since the last one, and squeezed out continuously from
///   then on: a steady 0.1 % clock needs one correction, not a pitch change every 40 s; what an estimate
///   missed is held by the pull (a steady error of that rate × 5 s) or learned at the next correction. A jump
///   during a correction undoes what it learned: that was lost samples, not a clock.
/// - An error past 0.1 s (samples lost in an overrun, a device that restarted) is made up at once, with
///   silence or by dropping samples, as swresample's own async mode does.
struct ClockDriftCorrection {
    enum Action: Equatable {
        /// Squeeze the audio by this fraction (negative: stretch) from now on.
        case resample(rate: Double)
        /// Samples are missing: queue this much silence.
        case insertSilence(Int)
        /// Samples are too many: drop this many.
        case drop(Int)
    }

    static let settlingSeconds = 1.0
    static let thresholdSeconds = 0.04
    static let releaseSeconds = 0.002
    /// The error is pulled back at itself over this time (40 ms: 0.8 % faster or slower), on top of the rate.
    static let correctionSeconds = 5.0
    /// The smoothing's time constant: a steadily growing error is seen this late.
    static let smoothingSeconds = 0.5
    static let maximumRate = 0.02
    static let jumpSeconds = 0.1
    /// The audio over which each block's error is the best (least late) of its stamps.
    static let envelopeSeconds = 0.25

    let sampleRate: Double
    /// Samples produced minus device time, in samples, the best over the quarter second after settling.
    private var reference: Int64? = nil
    /// Samples produced when the settling second ended.
    private var settledAt: Int64? = nil
    /// Produced minus device time, the best over the last `envelopeSeconds` of audio.
    private var envelope: SlidingMaximum
    private var smoothed: Double = 0
    private var correcting = false
    /// The device clock's learned rate against the system clock (0.001: 0.1 % fast).
    private(set) var clockRate: Double = 0
    /// When the error was last back within the release band, and what it was then.
    private var lastSettled: (elapsed: Int64, error: Double)? = nil
    private var appliedRate: Double = 0
    /// The learned rate before the correction under way.
    private var rateBeforeCorrection: Double = 0

    init(sampleRate: Int) {
        self.sampleRate = Double(sampleRate)
        envelope = SlidingMaximum(window: Int64(Double(sampleRate) * ClockDriftCorrection.envelopeSeconds))
    }

    /// `produced`: samples produced since the first one; `elapsed`: device time since the first sample's stamp,
    /// in samples; `blockSamples`: the block that just arrived. Nil: nothing to change.
    mutating func update(produced: Int64, elapsed: Int64, blockSamples: Int) -> Action? {
        guard produced >= Int64(sampleRate * ClockDriftCorrection.settlingSeconds) else { return nil }
        let offset = envelope.add(produced - elapsed, at: produced)
        if settledAt == nil {
            settledAt = produced
            lastSettled = (elapsed, 0)
        }
        if produced - settledAt! <= envelope.window { reference = offset }
        let error = Double(offset - reference!)
        smoothed += (error - smoothed) * min(1, Double(blockSamples) / (ClockDriftCorrection.smoothingSeconds * sampleRate))
        if abs(smoothed) > sampleRate * ClockDriftCorrection.jumpSeconds {
            if correcting { clockRate = rateBeforeCorrection }
            smoothed = 0
            correcting = false
            // What the envelope holds is from before the jump.
            envelope.removeAll()
            // Made up at once: the error starts again from zero. Lost samples say nothing of the clock's rate.
            lastSettled = (elapsed, 0)
            return error < 0 ? .insertSilence(Int(-error)) : .drop(Int(error))
        }
        if !correcting && abs(smoothed) > sampleRate * ClockDriftCorrection.thresholdSeconds {
            correcting = true
            // The error grew this fast with the learned rate applied: the rest is the clock's too (undone if a
            // jump follows during this correction: that was lost samples, not a clock).
            rateBeforeCorrection = clockRate
            // (The smoothed error lags a growing one by the smoothing's time constant.)
            let lag = sampleRate * ClockDriftCorrection.smoothingSeconds
            if let last = lastSettled, Double(elapsed - last.elapsed) > 2 * lag {
                let growth = (smoothed - last.error) / (Double(elapsed - last.elapsed) - lag)
                clockRate = max(-ClockDriftCorrection.maximumRate, min(ClockDriftCorrection.maximumRate, clockRate + growth))
            }
        } else if correcting && abs(smoothed) < sampleRate * ClockDriftCorrection.releaseSeconds {
            correcting = false
            lastSettled = (elapsed, smoothed)
        }
        let pull = correcting ? smoothed / (sampleRate * ClockDriftCorrection.correctionSeconds) : 0
        let rate = max(-ClockDriftCorrection.maximumRate, min(ClockDriftCorrection.maximumRate, clockRate + pull))
        // Given again with every block (swresample's compensation runs out after its distance), unless it is
        // and was none.
        guard rate != 0 || appliedRate != 0 else { return nil }
        appliedRate = rate
        return .resample(rate: rate)
    }
}
