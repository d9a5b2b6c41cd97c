import SystemSupport

/// A triggered recording's events as its feed decides them (TriggerFeed, on the session's thread) and the
/// movies its output cuts by them (TriggerSink, on that output's thread): the one place both meet.
final class TriggerSchedule: Sendable {
    private struct State {
        var events: [TriggerEvent] = []
        var movies: [TriggeredMovie] = []
    }
    private let state = Locked(State())

    func started(_ event: TriggerEvent) { state.withLock { $0.events.append(event) } }

    func ended(_ event: TriggerEvent) {
        state.withLock { state in
            guard let index = state.events.lastIndex(where: { $0.kind == event.kind && $0.end == nil }) else { return }
            state.events[index].end = event.end
        }
    }

    /// Every event so far, in the order they started.
    var events: [TriggerEvent] { state.withLock { $0.events } }

    func add(_ movie: TriggeredMovie) { state.withLock { $0.movies.append(movie) } }

    /// Loop recording deleted this movie for free space.
    func deleted(_ path: String) {
        state.withLock { state in
            for index in state.movies.indices where state.movies[index].path == path { state.movies[index].deleted = true }
        }
    }
    var movies: [TriggeredMovie] { state.withLock { $0.movies } }

    /// Where a movie that covers events from `first` on ends on the timeline: `postRoll` after the last of them
    /// (an event that starts before that end extends it); nil while one goes on. Also the index past them.
    static func stop(of events: [TriggerEvent], from first: Int, postRoll: Double) -> (end: Double?, next: Int) {
        var index = first
        var end: Double? = nil
        while index < events.count {
            if let end, events[index].start > end { break }
            guard let eventEnd = events[index].end else { return (nil, index + 1) }
            end = max(end ?? -.infinity, eventEnd + postRoll)
            index += 1
        }
        return (end, index)
    }
}
