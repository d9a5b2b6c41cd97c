import CFFmpeg

/// A point in media time: a tick count in a time base. Rescaled only where it crosses a stage boundary.
public struct Timestamp: Hashable, Sendable, CustomStringConvertible {
    public var value: Int64
    public var timeBase: Rational

    public init(value: Int64, timeBase: Rational) {
        self.value = value
        self.timeBase = timeBase
    }

    public static func zero(in timeBase: Rational) -> Timestamp { Timestamp(value: 0, timeBase: timeBase) }

    /// FFmpeg's "no timestamp" marker.
    public static var noValue: Int64 { reel_nopts_value() }

    /// The same instant in another time base, rounded to the nearest tick.
    public func rescaled(to other: Rational) -> Timestamp {
        Timestamp(value: av_rescale_q(value, timeBase.av, other.av), timeBase: other)
    }

    /// Rounds down instead of to nearest: for "which slot does this instant fall into" questions.
    public func rescaledDown(to other: Rational) -> Timestamp {
        let rounding = AVRounding(rawValue: AV_ROUND_DOWN.rawValue | AV_ROUND_PASS_MINMAX.rawValue)
        return Timestamp(value: av_rescale_q_rnd(value, timeBase.av, other.av, rounding), timeBase: other)
    }

    /// Seconds, for reports and limits at the edges; the pipeline itself never computes in Double.
    public var seconds: Double { Double(value) * timeBase.doubleValue }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        av_compare_ts(lhs.value, lhs.timeBase.av, rhs.value, rhs.timeBase.av) < 0
    }

    public static func + (lhs: Timestamp, rhs: Timestamp) -> Timestamp {
        // Wrapping, not trapping: a file's timestamps can be anything, and a wrong time is no reason to crash.
        Timestamp(value: lhs.value &+ rhs.rescaled(to: lhs.timeBase).value, timeBase: lhs.timeBase)
    }

    public static func - (lhs: Timestamp, rhs: Timestamp) -> Timestamp {
        Timestamp(value: lhs.value &- rhs.rescaled(to: lhs.timeBase).value, timeBase: lhs.timeBase)
    }

    public var description: String { "\(value)@\(timeBase)" }
}

extension Timestamp: Comparable {}
