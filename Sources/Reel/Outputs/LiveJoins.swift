import Synchronization
import SystemSupport

/// Live streams added to a movie while it records (`CaptureSession.addLiveStream`): handed over from any
/// thread, taken in by the movie's thread before its next captured item (a flag it reads per item, no lock).
/// Once the movie finishes, no stream joins: `add` says so.
final class LiveJoins: Sendable {
    private struct State {
        var pending: [LiveOutput] = []
        var closed = false
        /// The servers pushed to by streams that joined (the setup's are passed in to each `add`).
        var servers: Set<String> = []
    }
    private let state = Locked(State())
    private let waiting = Atomic<Bool>(false)

    /// Whether streams wait to be taken in (read by the movie's thread per item).
    var hasPending: Bool { waiting.load(ordering: .acquiring) }

    /// Hands `output`, a push to `url`, to the movie; false when the movie has finished (it takes no stream
    /// any more) or already pushes there (`already`: the pushes it started with).
    func add(_ output: LiveOutput, pushingTo url: String, already: [LivePush]) -> Bool {
        state.withLock { state in
            guard !state.closed, !already.contains(where: { $0.url == url }), state.servers.insert(url).inserted else { return false }
            state.pending.append(output)
            waiting.store(true, ordering: .releasing)
            return true
        }
    }

    /// The streams added since the last call (the movie's thread).
    func take() -> [LiveOutput] {
        state.withLock { state in
            waiting.store(false, ordering: .releasing)
            defer { state.pending = [] }
            return state.pending
        }
    }

    /// The movie is finishing: later `add`s fail; what was added and not taken in yet is returned.
    func close() -> [LiveOutput] {
        state.withLock { state in
            state.closed = true
            waiting.store(false, ordering: .releasing)
            defer { state.pending = [] }
            return state.pending
        }
    }
}
