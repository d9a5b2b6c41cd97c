import SystemSupport

/// The first picture of a shutter press, taken as the tap's photo while the press lasts: the photo task
/// settles it once, and a release waits for that (briefly) instead of polling for the file.
final class PressPhoto: @unchecked Sendable {
    enum State: Equatable, Sendable {
        case pending
        case taken
        case failed(String)
    }

    private let condition = Condition()
    private var state = State.pending

    func settle(_ outcome: State) {
        condition.withLock {
            guard state == .pending else { return }
            state = outcome
            condition.broadcast()
        }
    }

    /// The photo's state once it settles, or `.pending` after `seconds`.
    func wait(seconds: Double) -> State {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        return condition.withLock {
            while state == .pending && condition.wait(untilNanoseconds: deadline) {}
            return state
        }
    }
}
