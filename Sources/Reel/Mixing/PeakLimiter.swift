import Glibc

/// Keeps a mix within full scale: the gain drops at once to what the block's peak allows (ramped across the
/// block from the previous gain, the ramp's own overshoot clamped) and recovers with a 50 ms time constant.
/// Below full scale nothing changes: a mix that does not clip is passed through bit for bit.
struct PeakLimiter {
    /// The highest sample out (−0.1 dBFS).
    static let ceiling: Float = 0.9886
    let sampleRate: Int
    private(set) var gain: Float = 1

    mutating func apply(_ samples: inout [[Float]]) {
        guard let length = samples.first?.count, length > 0 else { return }
        var peak: Float = 0
        for channel in samples { for value in channel { peak = max(peak, abs(value)) } }
        let needed = peak * gain > PeakLimiter.ceiling ? PeakLimiter.ceiling / peak : gain
        // Recovery over this block: 1 - e^(-t / 50 ms) of the way back to 1.
        let recovery = Float(1 - exp(-Double(length) / (0.05 * Double(sampleRate))))
        let recovered = needed < gain ? needed : min(1, gain + (1 - gain) * recovery)
        let target = min(recovered, peak > 0 ? PeakLimiter.ceiling / peak : 1)
        guard gain < 1 || target < 1 else { return }
        for channel in samples.indices {
            for index in samples[channel].indices {
                let step = gain + (target - gain) * Float(index + 1) / Float(length)
                samples[channel][index] = max(-PeakLimiter.ceiling, min(PeakLimiter.ceiling, samples[channel][index] * step))
            }
        }
        gain = target
    }
}
