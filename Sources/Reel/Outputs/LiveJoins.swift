import Synchronization
import SystemSupport

/// Live streams added to a movie while it records (`CaptureSession.addLiveStream`): handed over from any
/// thread, taken in by the movie's thread before its next captured item (a flag it reads per item, no lock).
/// Once the movie finishes, no stream joins: `add` says so.
final class LiveJoins: Sendable {
    private struct State {
        var pending: [LiveOutput] = []
        var closed = false
        /// Where the streams that joined go (a server's URL, an HLS folder's path; the setup's are passed in to
        /// each `add`).
        var destinations: Set<String> = []
        /// The segment duration of the HLS streams that joined (they share the movie's keyframe grid).
        var segmentDuration: Double?
    }
    private let state = Locked(State())
    private let waiting = Atomic<Bool>(false)

    /// Whether streams wait to be taken in (read by the movie's thread per item).
    var hasPending: Bool { waiting.load(ordering: .acquiring) }

    /// Hands `output`, a stream to `destination` (a server's URL, a folder's path), to the movie; false when
    /// the movie has finished (it takes no stream any more) or already streams there (`already`: the
    /// destinations it started with).
    func add(_ output: LiveOutput, to destination: String, already: [String]) -> Bool {
        state.withLock { state in
            guard !state.closed, !already.contains(destination) else { return false }
            if let stream = output.hlsStream {
                guard (state.segmentDuration ?? stream.segmentDuration) == stream.segmentDuration else { return false }
                state.segmentDuration = stream.segmentDuration
            }
            guard state.destinations.insert(destination).inserted else { return false }
            state.pending.append(output)
            waiting.store(true, ordering: .releasing)
            return true
        }
    }

    /// The segment duration of the HLS streams that joined, if one did.
    var segmentDuration: Double? { state.withLock { $0.segmentDuration } }

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
