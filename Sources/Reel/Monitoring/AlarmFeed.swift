import FFmpegCore
import SystemSupport

/// Watches a session for its alarms (AlarmMonitor) on the session's thread: the sound through the level
/// updates that ride on its blocks (see AudioFrameSink), each picture through a 32 × 18 grid of its luma read
/// in place (`Frame.lumaGrid`: no scaling, no copy). Each alarm's start and end goes to `changed` as it
/// happens; the recording's result lists them all (`annotate`), those still on at the end without an end.
final class AlarmFeed: SessionWatcher, Sendable {
    static let gridColumns = 32
    static let gridRows = 18

    /// What it has seen: used on the session's thread (`take`, `end`), so its lock is never contended.
    private struct State {
        var monitor: AlarmMonitor
        var previousGrid: [Float]?
    }
    private let state: Locked<State>
    /// What it asks the session for, fixed at the start (read on any thread).
    private let watchesSound: Bool
    private let watchesPictures: Bool
    private let changed: @Sendable (AlarmMonitor.Change) -> Void
    private let finished = Locked<[Alarm]?>(nil)
    /// The timeline's zero on the session clock (the first picture): alarms are given on the timeline.
    private let origin: @Sendable () -> Double

    init(rules: [AlarmRule], origin: @escaping @Sendable () -> Double, changed: @escaping @Sendable (AlarmMonitor.Change) -> Void) {
        let monitor = AlarmMonitor(rules: rules)
        state = Locked(State(monitor: monitor))
        watchesSound = monitor.watchesSound
        watchesPictures = monitor.watchesPictures
        self.origin = origin
        self.changed = changed
    }

    func wants(_ type: MediaType) -> Bool { type == .audio ? watchesSound : type == .video && watchesPictures }

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        let changes: [AlarmMonitor.Change]
        if type == .audio {
            guard var levels = item.levels else { return }
            levels.time -= origin()
            changes = state.withLock { $0.monitor.sound(levels) }
        } else {
            guard let grid = item.picture(0).lumaGrid(columns: AlarmFeed.gridColumns, rows: AlarmFeed.gridRows) else { return }
            let time = Double(item.time.rescaled(to: sessionTimeBase).value) / 1_000_000 - origin()
            changes = state.withLock { state in
                let threshold = Float(state.monitor.blackThreshold ?? 0)
                let dark = Double(grid.reduce(0) { $0 + ($1 < threshold ? 1 : 0) }) / Double(grid.count)
                let change = state.previousGrid.map { previous in
                    Double(zip(grid, previous).reduce(Float(0)) { $0 + abs($1.0 - $1.1) }) / Double(grid.count)
                }
                state.previousGrid = grid
                return state.monitor.picture(.init(time: time, darkFraction: dark, change: change))
            }
        }
        for change in changes { changed(change) }
    }

    func end(_ ending: SessionEngine.Ending) {
        let alarms = state.withLock { $0.monitor.alarms }
        finished.withLock { $0 = alarms }
    }

    func annotate(_ results: inout [RecordingResult]) {
        guard !results.isEmpty, let alarms = finished.withLock({ $0 }) else { return }
        results[0].alarms = alarms
    }
}
