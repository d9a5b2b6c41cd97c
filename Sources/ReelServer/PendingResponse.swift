import SystemSupport

/// An answer given later: computed on the work pool (a photo, a movie stopped), or held until the live stream
/// has what was asked for (a blocking playlist reload). The handler returns it at once (`HTTPAnswer.later`);
/// the server parks the connection until `answer` is called, from any thread. The first answer counts.
final class PendingResponse: ParkedResponse {
    private struct State {
        var response: HTTPResponse?
        /// Set by the server when it parks the connection, so `answer` can wake it.
        var parking: ConnectionParking?
    }

    private let state = Locked(State())

    init() {}

    func answer(_ response: HTTPResponse) {
        let parking = state.withLock { state -> ConnectionParking? in
            guard state.response == nil else { return nil }
            state.response = response
            return state.parking
        }
        parking?.wake(self)
    }

    /// The answer, once given.
    var response: HTTPResponse? { state.withLock { $0.response } }

    var isAnswered: Bool { response != nil }

    func clientLeft() {
        state.withLock { state in
            if state.response == nil { state.response = .error(503, "the client left before the answer") }
        }
    }

    /// Called by the server before it parks the connection.
    func attach(_ parking: ConnectionParking) {
        state.withLock { $0.parking = parking }
    }
}
