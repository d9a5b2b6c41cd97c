import Glibc

/// The sound's levels at one moment, per channel, in dBFS (0 is full scale, −∞ is digital silence), measured on
/// the samples as captured, before encoding. About ten a second (`LevelMeter.updateSeconds`).
///
/// - `rms`: the root mean square of the last 50 ms block (`LevelMeter.blockSeconds`). A full-scale sine is
///   −3.01 dBFS RMS (the AES17 convention would add 3.01 dB; this is the plain RMS).
/// - `peak`: a peak meter: the highest sample magnitude, falling at 11.76 dB/s after it (IEC 60268-18, the decay
///   OBS uses), so a short peak stays visible.
/// - `peakHold`: the highest sample peak of the last 20 s (OBS's peak hold).
/// - `clippedSamples`: samples at full scale since the session started.
public struct AudioLevels: Sendable, Equatable, Codable {
    public struct Channel: Sendable, Equatable, Codable {
        public var rms: Double
        public var peak: Double
        public var peakHold: Double
        public var clippedSamples: Int

        public init(rms: Double, peak: Double, peakHold: Double, clippedSamples: Int = 0) {
            self.rms = rms
            self.peak = peak
            self.peakHold = peakHold
            self.clippedSamples = clippedSamples
        }

        // −∞ (silence) has no JSON number: it is null.
        private enum CodingKeys: String, CodingKey { case rms, peak, peakHold, clippedSamples }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func level(_ key: CodingKeys) throws -> Double { try container.decodeIfPresent(Double.self, forKey: key) ?? -.infinity }
            rms = try level(.rms)
            peak = try level(.peak)
            peakHold = try level(.peakHold)
            clippedSamples = try container.decodeIfPresent(Int.self, forKey: .clippedSamples) ?? 0
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            func level(_ value: Double, _ key: CodingKeys) throws {
                if value.isFinite { try container.encode((value * 100).rounded() / 100, forKey: key) } else { try container.encodeNil(forKey: key) }
            }
            try level(rms, .rms)
            try level(peak, .peak)
            try level(peakHold, .peakHold)
            try container.encode(clippedSamples, forKey: .clippedSamples)
        }
    }

    /// Seconds on the session's timeline (0 is its first picture, as for its movies) at the end of the measured
    /// block.
    public var time: Double
    public var channels: [Channel]

    public init(time: Double, channels: [Channel]) {
        self.time = time
        self.channels = channels
    }

    /// dBFS of a magnitude on the full-scale range (−∞ for 0).
    public static func decibels(_ magnitude: Double) -> Double {
        magnitude > 0 ? 20 * log10(magnitude) : -.infinity
    }
}
