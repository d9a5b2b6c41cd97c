import CFFmpeg

/// An exact fraction, FFmpeg's unit for time bases and frame rates.
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int32
    public var denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public init(_ value: AVRational) { self.init(value.num, value.den) }

    /// The closest fraction to `value` with terms no larger than `maxTerm` (29.97 → 30000/1001).
    public init(approximating value: Double, maxTerm: Int32 = 100_000) {
        self.init(av_d2q(value, maxTerm))
    }

    public var av: AVRational { AVRational(num: numerator, den: denominator) }
    public var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    public var inverted: Rational { Rational(denominator, numerator) }
    public var isValid: Bool { numerator > 0 && denominator > 0 }
    public var description: String { "\(numerator)/\(denominator)" }
}
