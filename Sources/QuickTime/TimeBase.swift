/// The unit of a timestamp, as a fraction of a second (1/30 for a 30 fps encoder, 1/15360 for the track
/// timescale FFmpeg's muxer picks for it, 1/1000 for the movie header). Conversions round as FFmpeg's
/// av_rescale_rnd does, so times converted here are the ones the muxer computes.
public struct TimeBase: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int32
    public var denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        precondition(numerator > 0 && denominator > 0, "a time base is a positive fraction, not \(numerator)/\(denominator)")
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The unit of a QuickTime timescale: 1/`timescale` of a second.
    public init(timescale: Int32) {
        self.init(1, timescale)
    }

    /// How long one tick lasts, in seconds (for reports and thresholds; conversions stay exact).
    public var secondsPerTick: Double { Double(numerator) / Double(denominator) }

    /// How a conversion that does not come out whole is rounded (FFmpeg's AVRounding modes).
    public enum Rounding: Sendable {
        /// To the nearest tick, halves away from zero (AV_ROUND_NEAR_INF, av_rescale_q's rounding).
        case nearest
        /// Toward minus infinity (AV_ROUND_DOWN).
        case down
        /// Toward plus infinity (AV_ROUND_UP).
        case up
    }

    /// `value` ticks of this time base in ticks of `other`. Exact (128-bit intermediate) up to the rounding;
    /// a result that does not fit 64 bits is clamped.
    public func convert(_ value: Int64, to other: TimeBase, rounding: Rounding = .nearest) -> Int64 {
        if self == other { return value }
        return TimeBase.rescale(value, Int64(numerator) * Int64(other.denominator),
                                Int64(denominator) * Int64(other.numerator), rounding: rounding)
    }

    /// `value` × `multiplier` / `divisor` with `rounding` (FFmpeg's av_rescale_rnd); both factors positive.
    static func rescale(_ value: Int64, _ multiplier: Int64, _ divisor: Int64, rounding: Rounding) -> Int64 {
        // The magnitude is rounded; toward ±infinity swap for a negative value.
        let negative = value < 0
        let magnitudeRounding: Rounding = switch (rounding, negative) {
        case (.nearest, _): .nearest
        case (.down, false), (.up, true): .down
        case (.up, false), (.down, true): .up
        }
        let divisorBits = UInt64(divisor)
        let bias: UInt64 = switch magnitudeRounding {
        case .nearest: divisorBits / 2
        case .down: 0
        case .up: divisorBits - 1
        }
        var (high, low) = value.magnitude.multipliedFullWidth(by: UInt64(multiplier))
        let (sum, carry) = low.addingReportingOverflow(bias)
        low = sum
        if carry { high += 1 }
        guard high < divisorBits else { return negative ? Int64.min : Int64.max }
        let quotient = divisorBits.dividingFullWidth((high, low)).quotient
        guard quotient <= UInt64(Int64.max) else { return negative ? Int64.min : Int64.max }
        return negative ? -Int64(quotient) : Int64(quotient)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}
