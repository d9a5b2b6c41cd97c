import FFmpegCore
import SystemSupport

/// How long a session's movies have been paused, for the readers' part of the duration limit: a reader stops
/// a second past `--max-duration` of its input's time, and paused time is not recorded media, so the limit
/// moves on by the time spent paused (and never arrives while paused). Live inputs count it on the monotonic
/// clock, as their timestamps run; a file's pause skips media at the speed it is read, which no clock
/// measures, so once a file's session has paused its readers leave the limit to the movies (which count
/// recorded media exactly). Thread-safe: set from the session's control, read by every reader.
final class PausedTime: Sendable {
    private struct State {
        var since: Int64?
        var total: Int64 = 0
        var paused = false
    }

    private let live: Bool
    private let state = Locked(State())

    init(live: Bool) { self.live = live }

    func set(_ paused: Bool) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            if paused && state.since == nil {
                state.since = now
                state.paused = true
            } else if !paused, let since = state.since {
                state.total += now - since
                state.since = nil
            }
        }
    }

    /// Microseconds the readers' limit has moved on by; nil when it no longer applies (paused now, or a file's
    /// session that has paused).
    var allowance: Int64? {
        state.withLock { state in
            guard state.since == nil, live || !state.paused else { return nil }
            return state.total / 1000
        }
    }
}
