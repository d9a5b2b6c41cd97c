/// A recording that keeps movies only around events (`--trigger`): motion in the picture or sound. Each event
/// gets a movie that starts `preRoll` seconds before it (from the replay window: the packets are already
/// encoded), lasts while it goes on and ends `postRoll` seconds after; an event that starts within a movie's
/// post-roll extends it. With it the session records no continuous movie: `RecordingConfiguration.outputPath`
/// names the event movies (`{index}`, `{date}`, `{time}`, as segments; without `{index}`, -001 … before .mov).
public struct TriggeredRecording: Sendable, Equatable {
    public var rules: [TriggerRule]
    public var preRoll: Double
    public var postRoll: Double
    /// Loop recording (`--keep-free`): before a movie starts, this recording's oldest movies are deleted while
    /// the free space is under the recording's floor (`RecordingLimits.minFreeDiskSpace`).
    public var deletesOldestForFreeSpace: Bool
    /// The free space the movies keep (their writing stops at it; loop recording deletes to stay above it);
    /// nil: the recording's `RecordingLimits.minFreeDiskSpace`.
    public var freeSpaceFloor: Int64?

    public init(rules: [TriggerRule], preRoll: Double = TriggerRule.defaultPreRoll, postRoll: Double = TriggerRule.defaultPostRoll,
                deletesOldestForFreeSpace: Bool = false) {
        self.rules = rules
        self.preRoll = preRoll
        self.postRoll = postRoll
        self.deletesOldestForFreeSpace = deletesOldestForFreeSpace
    }

    /// Keyframes are forced this often in a triggered recording's encoder, so a movie's pre-roll starts at
    /// most this much before the time asked.
    public static let keyframeSeconds: Double = 1

    /// Rejects settings that cannot work before anything is recorded.
    package func validate() throws {
        guard !rules.isEmpty else { throw ReelError.invalidInput("a triggered recording needs a trigger: --trigger motion or --trigger sound") }
        let kinds = rules.map(\.kind)
        guard Set(kinds).count == kinds.count else {
            throw ReelError.invalidInput("--trigger: give each kind once (motion, sound)")
        }
        for rule in rules where !TriggerRule.thresholdRange(rule.kind).contains(rule.threshold) {
            throw ReelError.invalidInput("--trigger \(rule.kind.rawValue): \(NumberText.plain(rule.threshold)) is out of range \(NumberText.plain(TriggerRule.thresholdRange(rule.kind).lowerBound)) to \(NumberText.plain(TriggerRule.thresholdRange(rule.kind).upperBound))")
        }
        for (name, value) in [("--pre-roll", preRoll), ("--post-roll", postRoll)] where !TriggerRule.rollRange.contains(value) {
            throw ReelError.invalidInput("\(name) \(NumberText.plain(value)) is out of range: use 0 to \(NumberText.plain(TriggerRule.rollRange.upperBound)) seconds")
        }
    }

    var watchesPictures: Bool { rules.contains { $0.kind == .motion } }
    var watchesSound: Bool { rules.contains { $0.kind == .sound } }
}

/// A movie a trigger made: where, the events it holds, and its span on the recording's timeline.
public struct TriggeredMovie: Sendable, Codable, Equatable {
    public var path: String
    public var events: [TriggerEvent]
    /// Its first picture and its end on the recording's timeline (seconds from the first picture).
    public var start: Double
    public var end: Double
    public var seconds: Double
    public var videoFrames: Int
    public var bytes: Int64
    /// Set when it ended before its post-roll (the free-space floor, a full disk, a failure).
    public var stopReason: StopReason?
    public var error: String?
    /// Loop recording (`--keep-free`) deleted it later to keep the free space.
    public var deleted: Bool?
}
