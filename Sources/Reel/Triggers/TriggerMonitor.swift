/// Decides when a trigger's events start and end from its condition measured over time (each picture's
/// motion, each level update's loudness); pure, so its timing rules are unit-tested. An event fires once its
/// condition has held `onSeconds` without a break (what is shorter, a flicker or a click, fires nothing); its
/// `start` is the condition's first moment. It is over once the condition has not held for `offSeconds`; its
/// `end` is the last moment it held.
struct TriggerMonitor {
    enum Change: Equatable {
        case started(TriggerEvent)
        case ended(TriggerEvent)
    }

    let kind: TriggerKind
    let onSeconds: Double
    let offSeconds: Double
    /// Since when the condition holds without a break (nil: it does not now).
    private var since: Double?
    /// The latest moment it held.
    private var lastHeld: Double?
    private(set) var active: TriggerEvent?
    private(set) var events: [TriggerEvent] = []

    init(kind: TriggerKind, onSeconds: Double = TriggerRule.onSeconds, offSeconds: Double = TriggerRule.offSeconds) {
        self.kind = kind
        self.onSeconds = onSeconds
        self.offSeconds = offSeconds
    }

    /// The condition measured at `time` (seconds on the recording's timeline, in order).
    mutating func measure(at time: Double, holds: Bool) -> [Change] {
        if holds {
            if since == nil { since = time }
            lastHeld = time
        } else {
            since = nil
        }
        if var event = active {
            guard !holds, let lastHeld, time - lastHeld >= offSeconds else { return [] }
            event.end = lastHeld
            active = nil
            events.append(event)
            return [.ended(event)]
        }
        guard let since, time - since >= onSeconds else { return [] }
        let event = TriggerEvent(kind: kind, start: since)
        active = event
        return [.started(event)]
    }

    /// The recording ended: an event still on ends at its last moment.
    mutating func finish() -> [Change] {
        guard var event = active else { return [] }
        event.end = lastHeld ?? event.start
        active = nil
        events.append(event)
        return [.ended(event)]
    }
}
