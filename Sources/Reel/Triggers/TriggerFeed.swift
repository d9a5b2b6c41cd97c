import FFmpegCore
import SystemSupport

/// Watches a triggered recording's inputs on the session's thread (as AlarmFeed does): each picture through a
/// 64 × 36 grid of its luma read in place (MotionMeasure against the picture before), the sound through the
/// level updates that ride on its blocks. Each rule's TriggerMonitor decides the events; they go to the
/// schedule the movies are cut by, and to `changed` as they start and end.
final class TriggerFeed: SessionWatcher, @unchecked Sendable {
    static let gridColumns = 64
    static let gridRows = 36

    /// Touched only on the session's thread (`take`, `end`).
    private var monitors: [(rule: TriggerRule, monitor: TriggerMonitor)]
    private var previousGrid: [Float]?
    private let watchesSound: Bool
    private let watchesPictures: Bool
    private let schedule: TriggerSchedule
    private let changed: @Sendable (TriggerMonitor.Change) -> Void
    /// The timeline's zero on the session clock (the first picture): events are given on the timeline.
    private let origin: @Sendable () -> Double

    init(recording: TriggeredRecording, schedule: TriggerSchedule, origin: @escaping @Sendable () -> Double,
         changed: @escaping @Sendable (TriggerMonitor.Change) -> Void) {
        monitors = recording.rules.map { ($0, TriggerMonitor(kind: $0.kind)) }
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
            let share = previousGrid.map { MotionMeasure.changedShare(grid, previous: $0) } ?? 0
            previousGrid = grid
            measure(.motion, at: Double(item.time.rescaled(to: sessionTimeBase).value) / 1_000_000 - origin()) { share >= $0.threshold }
        }
    }

    private func measure(_ kind: TriggerKind, at time: Double, holds: (TriggerRule) -> Bool) {
        for index in monitors.indices where monitors[index].rule.kind == kind {
            publish(monitors[index].monitor.measure(at: time, holds: holds(monitors[index].rule)))
        }
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
        for index in monitors.indices { publish(monitors[index].monitor.finish()) }
    }

    func annotate(_ results: inout [RecordingResult]) {}
}
