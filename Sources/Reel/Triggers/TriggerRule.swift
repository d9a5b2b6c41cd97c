/// What starts a triggered movie (`--trigger motion[:AREA]`, `--trigger sound[:LEVEL]`).
public enum TriggerKind: String, Sendable, Codable, CaseIterable {
    /// Pictures changing: a share of the picture changes from one picture to the next (MotionMeasure).
    case motion
    /// Sound: the loudest channel's RMS at or above a level in dBFS (the level meter's).
    case sound
}

/// A trigger and its threshold. A condition must hold `onSeconds` before it fires (a flicker or a click
/// does not) and is over once it has not held for `offSeconds` (a pause between words, a still moment in a
/// movement does not end it); the event runs from the condition's first moment to its last.
public struct TriggerRule: Sendable, Equatable, Codable {
    public var kind: TriggerKind
    /// Motion: the share of the picture that must change, 0.001…1. Sound: the RMS level in dBFS, -90…0.
    public var threshold: Double

    public init(kind: TriggerKind, threshold: Double? = nil) {
        self.kind = kind
        self.threshold = threshold ?? TriggerRule.defaultThreshold(kind)
    }

    /// 2 % of the picture; -30 dBFS (a voice near the microphone, not a room's hum).
    public static func defaultThreshold(_ kind: TriggerKind) -> Double {
        switch kind {
        case .motion: 0.02
        case .sound: -30
        }
    }

    public static func thresholdRange(_ kind: TriggerKind) -> ClosedRange<Double> {
        switch kind {
        case .motion: 0.001...1
        case .sound: -90...0
        }
    }

    /// Seconds the condition must hold before the trigger fires, and be absent before it is over.
    public static let onSeconds = 0.5
    public static let offSeconds = 1.0
    /// How much a spot of the picture (its luma, 0…1 of the range) must change to count as changed: well above
    /// a camera's noise, below a person walking past a wall.
    public static let motionLumaChange = 0.08

    /// Pre-roll and post-roll: 0 to a minute (the replay window that holds the pre-roll is in memory).
    public static let rollRange: ClosedRange<Double> = 0...60
    public static let defaultPreRoll: Double = 2
    public static let defaultPostRoll: Double = 2

    /// Parses `motion`, `motion:0.05`, `sound`, `sound:-25`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let kind = TriggerKind(rawValue: parts[0]) else {
            throw ReelError.invalidInput("--trigger '\(text)': use motion[:AREA] or sound[:LEVEL_DBFS]")
        }
        var threshold: Double? = nil
        if parts.count == 2 {
            let range = TriggerRule.thresholdRange(kind)
            guard let value = NumberText.decimal(parts[1]), range.contains(value) else {
                let what = kind == .motion ? "the share of the picture that must change" : "a level in dBFS"
                throw ReelError.invalidInput("--trigger \(text): \(parts[1]) is not \(what) from \(NumberText.plain(range.lowerBound)) to \(NumberText.plain(range.upperBound))")
            }
            threshold = value
        }
        self.init(kind: kind, threshold: threshold)
    }
}

/// One triggered event: when its condition began and ended on the recording's timeline (seconds from its
/// first picture); `end` is nil while it goes on.
public struct TriggerEvent: Sendable, Equatable, Codable {
    public var kind: TriggerKind
    public var start: Double
    public var end: Double?

    public init(kind: TriggerKind, start: Double, end: Double? = nil) {
        self.kind = kind
        self.start = start
        self.end = end
    }
}
