import Dispatch
import SystemSupport

/// The first picture of a shutter press, taken as the tap's photo while the press lasts: the photo task
/// settles it once, and a release waits for that (briefly) instead of polling for the file.
final class PressPhoto: Sendable {
    enum State: Equatable, Sendable {
        case pending
        case taken
        case failed(String)
    }

    private let state = Locked(State.pending)
    private let settled = DispatchSemaphore(value: 0)

    func settle(_ outcome: State) {
        let first = state.withLock { state in
            guard state == .pending else { return false }
            state = outcome
            return true
        }
        if first { settled.signal() }
    }

    /// The photo's state once it settles, or `.pending` after `seconds`.
    func wait(seconds: Double) -> State {
        if settled.wait(timeout: .now() + seconds) == .success { settled.signal() }  // for any later waiter
        return state.withLock { $0 }
    }
}
