/// Decides when alarms start and end (see AlarmRule), from the sound's level updates and a measure of each
/// picture; pure, so its timing rules are unit-tested. An alarm's `start` is when its condition began (the
/// first silent block, the first black or unchanged picture), reported once the condition has lasted the
/// rule's seconds; its `end` is the first moment the condition no longer held.
struct AlarmMonitor {
    enum Change: Equatable {
        case started(Alarm)
        case ended(Alarm)
    }

    /// A picture as the monitor sees it: how much of it is dark (0…1 below the black rule's luma) and how much
    /// it changed from the picture before (mean luma difference, 0…1; nil for the first).
    struct Picture {
        var time: Double
        var darkFraction: Double
        var change: Double?
    }

    /// The share of the picture that must be dark for it to count as black (ffmpeg's blackdetect: 98 %).
    static let blackShare = 0.98

    let rules: [AlarmRule]
    /// Per rule: since when its condition holds (nil: it does not), and its alarm while on.
    private var since: [Double?]
    private var active: [Alarm?]
    /// Clipping: the clipped-sample count at the last update, per channel, and when a sample last clipped.
    private var clippedSoFar: [Int] = []
    private var lastClip: Double?
    private(set) var finished: [Alarm] = []

    init(rules: [AlarmRule]) {
        self.rules = rules
        since = Array(repeating: nil, count: rules.count)
        active = Array(repeating: nil, count: rules.count)
    }

    var watchesSound: Bool { rules.contains { $0.kind == .silence || $0.kind == .clipping } }
    var watchesPictures: Bool { rules.contains { $0.kind == .black || $0.kind == .frozen } }

    /// The black rule's luma threshold (pictures are measured against it).
    var blackThreshold: Double? { rules.first { $0.kind == .black }?.threshold }

    mutating func sound(_ levels: AudioLevels) -> [Change] {
        let blockStart = levels.time - LevelMeter.updateSeconds
        var changes: [Change] = []
        let counts = levels.channels.map(\.clippedSamples)
        let newlyClipped = counts.count == clippedSoFar.count ? zip(counts, clippedSoFar).map { max(0, $0 - $1) }.reduce(0, +) : counts.reduce(0, +)
        clippedSoFar = counts
        if newlyClipped > 0 { lastClip = levels.time }
        for (index, rule) in rules.enumerated() {
            switch rule.kind {
            case .silence:
                let quiet = levels.channels.allSatisfy { $0.rms < rule.threshold }
                // The RMS is the last 50 ms block's: a quiet update began quiet at that block's start.
                changes += holds(index, quiet, at: levels.time, began: levels.time - LevelMeter.blockSeconds,
                                 detail: "every channel below \(NumberText.plain(rule.threshold)) dBFS")
            case .clipping:
                if newlyClipped > 0 {
                    if active[index] == nil {
                        let alarm = Alarm(kind: .clipping, start: blockStart, detail: "samples at full scale", clippedSamples: newlyClipped)
                        active[index] = alarm
                        changes.append(.started(alarm))
                    } else if var alarm = active[index] {
                        alarm.clippedSamples = (alarm.clippedSamples ?? 0) + newlyClipped
                        active[index] = alarm
                    }
                } else if let lastClip, active[index] != nil, levels.time - lastClip >= rule.seconds {
                    changes.append(end(index, at: lastClip))
                }
            case .black, .frozen:
                break
            }
        }
        return changes
    }

    mutating func picture(_ picture: Picture) -> [Change] {
        var changes: [Change] = []
        for (index, rule) in rules.enumerated() {
            switch rule.kind {
            case .black:
                changes += holds(index, picture.darkFraction >= AlarmMonitor.blackShare, at: picture.time, began: picture.time,
                                 detail: "the picture is black (luma below \(NumberText.plain(rule.threshold)))")
            case .frozen:
                guard let change = picture.change else { continue }
                changes += holds(index, change <= rule.threshold, at: picture.time, began: picture.time,
                                 detail: "the picture has not changed")
            case .silence, .clipping:
                break
            }
        }
        return changes
    }

    /// The condition of rule `index` holds (or not) at `time`; `began` is when what is measured now began (the
    /// start of the condition if it starts now, the end of the alarm if it ends now).
    private mutating func holds(_ index: Int, _ condition: Bool, at time: Double, began: Double, detail: String) -> [Change] {
        guard condition else {
            since[index] = nil
            return active[index] == nil ? [] : [end(index, at: began)]
        }
        let start = since[index] ?? began
        since[index] = start
        guard active[index] == nil, time - start >= rules[index].seconds - 1e-9 else { return [] }
        let alarm = Alarm(kind: rules[index].kind, start: start, detail: detail)
        active[index] = alarm
        return [.started(alarm)]
    }

    private mutating func end(_ index: Int, at time: Double) -> Change {
        var alarm = active[index]!
        alarm.end = max(alarm.start, time)
        active[index] = nil
        finished.append(alarm)
        return .ended(alarm)
    }

    /// Every alarm of the recording, in the order they started; those still on have no end.
    var alarms: [Alarm] {
        (finished + active.compactMap { $0 }).sorted { $0.start < $1.start }
    }

    /// Whether an alarm is on now.
    var isAlarming: Bool { active.contains { $0 != nil } }
}
