import FFmpegCore
import SystemSupport

/// Watches a triggered recording's inputs on the session's thread (as AlarmFeed does): each picture through a
/// 64 × 36 grid of its luma read in place (MotionMeasure against the picture before), the sound through the
/// level updates that ride on its blocks. Each rule's TriggerMonitor decides the events; they go to the
/// schedule the movies are cut by, and to `changed` as they start and end.
final class TriggerFeed: SessionWatcher, Sendable {
    static let gridColumns = 64
    static let gridRows = 36

    /// What it has seen: used on the session's thread (`take`, `end`), so its lock is never contended.
    private struct State {
        var monitors: [(rule: TriggerRule, monitor: TriggerMonitor)]
        var previousGrid: [Float]?
    }
    private let state: Locked<State>
    private let watchesSound: Bool
    private let watchesPictures: Bool
    private let schedule: TriggerSchedule
    private let changed: @Sendable (TriggerMonitor.Change) -> Void
    /// The timeline's zero on the session clock (the first picture): events are given on the timeline.
    private let origin: @Sendable () -> Double

    init(recording: TriggeredRecording, schedule: TriggerSchedule, origin: @escaping @Sendable () -> Double,
         changed: @escaping @Sendable (TriggerMonitor.Change) -> Void) {
        state = Locked(State(monitors: recording.rules.map { ($0, TriggerMonitor(kind: $0.kind)) }))
        watchesSound = recording.watchesSound
        watchesPictures = recording.watchesPictures
        self.schedule = schedule
        self.origin = origin
        self.changed = changed
    }

    func wants(_ type: MediaType) -> Bool { type == .audio ? watchesSound : type == .video && watchesPictures }

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        if type == .audio {
            guard let levels = item.levels else { return }
            let loudest = levels.channels.map(\.rms).max() ?? -.infinity
            measure(.sound, at: levels.time - origin()) { loudest >= $0.threshold }
        } else {
            guard let grid = item.picture(0).lumaGrid(columns: TriggerFeed.gridColumns, rows: TriggerFeed.gridRows) else { return }
            let share = state.withLock { state in
                defer { state.previousGrid = grid }
                return state.previousGrid.map { MotionMeasure.changedShare(grid, previous: $0) } ?? 0
            }
            measure(.motion, at: Double(item.time.rescaled(to: sessionTimeBase).value) / 1_000_000 - origin()) { share >= $0.threshold }
        }
    }

    private func measure(_ kind: TriggerKind, at time: Double, holds: (TriggerRule) -> Bool) {
        let changes = state.withLock { state in
            state.monitors.indices.filter { state.monitors[$0].rule.kind == kind }.flatMap { index in
                state.monitors[index].monitor.measure(at: time, holds: holds(state.monitors[index].rule))
            }
        }
        publish(changes)
    }

    private func publish(_ changes: [TriggerMonitor.Change]) {
        for change in changes {
            switch change {
            case .started(let event): schedule.started(event)
            case .ended(let event): schedule.ended(event)
            }
            changed(change)
        }
    }

    func end(_ ending: SessionEngine.Ending) {
        publish(state.withLock { state in state.monitors.indices.flatMap { state.monitors[$0].monitor.finish() } })
    }

    func annotate(_ results: inout [RecordingResult]) {}
}
