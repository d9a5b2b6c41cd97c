/// What a live stream tells while its movie records (RecordingEvent.liveStopped, .liveConnection).
enum LiveEvent: Sendable {
    /// The stream stopped for good before its movie (a folder that failed, a server that refused it).
    case stopped(LiveResult)
    /// A pushed stream's connection changed.
    case connection(LiveConnection)
}

/// A change of a pushed stream's connection to its server (`--live srt://…`, `rtmp://…`): on the status
/// line, as `liveConnected` / `liveDisconnected` / `liveReconnecting` events on the control socket.
public struct LiveConnection: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        /// The server took the stream (the first time, or again after a loss).
        case connected
        /// The connection was lost or could not be made; `reason` says why.
        case disconnected
        /// The next attempt, number `attempt`, is `retryIn` seconds away.
        case reconnecting
    }
    /// The server's address with its stream key and passphrase hidden.
    public var url: String
    public var state: State
    public var reason: String?
    public var attempt: Int?
    public var retryIn: Double?

    public init(url: String, state: State, reason: String? = nil, attempt: Int? = nil, retryIn: Double? = nil) {
        self.url = url
        self.state = state
        self.reason = reason
        self.attempt = attempt
        self.retryIn = retryIn
    }

    /// The event's name on the control socket: liveConnected, liveDisconnected, liveReconnecting.
    public var eventName: String { "live" + state.rawValue.prefix(1).uppercased() + state.rawValue.dropFirst() }

    /// One line for a person (the status line's warnings, `reel ctl … subscribe`).
    public var text: String {
        switch state {
        case .connected: return "live stream \(url) connected"
        case .disconnected: return "live stream \(url) disconnected: \(reason ?? "the connection ended")"
        case .reconnecting:
            return "live stream \(url): attempt \(attempt ?? 1) in \(NumberText.plain(retryIn ?? 0)) s" + (reason.map { " (\($0))" } ?? "")
        }
    }
}
