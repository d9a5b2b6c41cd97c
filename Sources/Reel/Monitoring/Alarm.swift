/// What a recording rig's operator must hear about while the file itself looks fine: the microphone dead or
/// muted, the sound clipping, the lens capped, the camera or screen stuck.
public enum AlarmKind: String, Sendable, Codable, CaseIterable {
    case silence, clipping, black, frozen
}

/// An alarm to watch for, as `--alarm KIND[:THRESHOLD[:SECONDS]]` gives it (see `AlarmRule.defaults`).
public struct AlarmRule: Sendable, Equatable, Codable {
    public var kind: AlarmKind
    /// silence: the level (dBFS) every channel's RMS stays below; black: the luma (0…1 of the video range) most
    /// of the picture (98 %) stays below; frozen: the mean luma change between pictures (0…1) that counts as
    /// none; clipping: not used.
    public var threshold: Double
    /// How long the condition lasts before the alarm starts (clipping: how long without a clipped sample ends it).
    public var seconds: Double

    public init(kind: AlarmKind, threshold: Double? = nil, seconds: Double? = nil) {
        let defaults = AlarmRule.defaults(kind)
        self.kind = kind
        self.threshold = threshold ?? defaults.threshold
        self.seconds = seconds ?? defaults.seconds
    }

    /// The defaults: silence below −60 dBFS for 10 s; clipping from the first full-scale sample until 1 s
    /// without one; black below 0.1 luma over 98 % of the picture for 2 s; frozen, pictures changing by less
    /// than 0.002 of the luma range (about −54 dB, below a camera's noise) for 10 s.
    public static func defaults(_ kind: AlarmKind) -> (threshold: Double, seconds: Double) {
        switch kind {
        case .silence: (-60, 10)
        case .clipping: (0, 1)
        case .black: (0.1, 2)
        case .frozen: (0.002, 10)
        }
    }

    /// The thresholds a rule may have, by kind, and its seconds.
    static func thresholdRange(_ kind: AlarmKind) -> ClosedRange<Double> {
        switch kind {
        case .silence: -120...0
        case .clipping: 0...0
        case .black: 0...1
        case .frozen: 0...0.5
        }
    }

    static let secondsRange: ClosedRange<Double> = 0.1...86_400

    /// `silence`, `silence:-50`, `silence:-50:5`, `black:0.08:3`, `clipping:2` (the seconds without clipping
    /// that end it). Throws `ReelError.invalidInput` naming the kinds and ranges.
    public init(parsing text: String) throws {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let kind = AlarmKind(rawValue: fields[0]) else {
            throw ReelError.invalidInput("--alarm \(text): unknown kind '\(fields[0])': use silence, clipping, black or frozen")
        }
        func number(_ field: String, _ what: String) throws -> Double {
            guard let value = NumberText.decimal(field) else {
                throw ReelError.invalidInput("--alarm \(text): \(what) '\(field)' is not a number")
            }
            return value
        }
        var threshold: Double? = nil, seconds: Double? = nil
        switch (kind, fields.count) {
        case (_, 1): break
        case (.clipping, 2): seconds = try number(fields[1], "seconds")
        case (.clipping, _): throw ReelError.invalidInput("--alarm \(text): clipping takes at most SECONDS (without clipping that end it)")
        case (_, 2): threshold = try number(fields[1], "threshold")
        case (_, 3):
            threshold = try number(fields[1], "threshold")
            seconds = try number(fields[2], "seconds")
        default: throw ReelError.invalidInput("--alarm \(text): use \(kind.rawValue)[:THRESHOLD[:SECONDS]]")
        }
        self.init(kind: kind, threshold: threshold, seconds: seconds)
        guard AlarmRule.thresholdRange(kind).contains(self.threshold) else {
            let range = AlarmRule.thresholdRange(kind)
            throw ReelError.invalidInput("--alarm \(text): the threshold must be from \(NumberText.plain(range.lowerBound)) to \(NumberText.plain(range.upperBound))")
        }
        guard AlarmRule.secondsRange.contains(self.seconds) else {
            throw ReelError.invalidInput("--alarm \(text): the seconds must be from 0.1 to 86400")
        }
    }
}

/// An alarm that went off: when its condition began (seconds on the session's timeline, 0 at its first picture,
/// as for its movies), when it ended (nil: still on), and what it saw, in words.
public struct Alarm: Sendable, Equatable, Codable {
    public var kind: AlarmKind
    public var start: Double
    public var end: Double?
    public var detail: String
    /// Clipping: the samples at full scale while it was on.
    public var clippedSamples: Int?

    public init(kind: AlarmKind, start: Double, end: Double? = nil, detail: String, clippedSamples: Int? = nil) {
        self.kind = kind
        self.start = start
        self.end = end
        self.detail = detail
        self.clippedSamples = clippedSamples
    }
}
