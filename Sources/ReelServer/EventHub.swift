import Reel
import SystemSupport

/// Server-Sent Events for every subscriber of `/api/events`: each is a stream of at most `queueLimit` waiting
/// events (the oldest are dropped when a client reads too slowly, so a stalled browser cannot grow the
/// server's memory); one keep-alive thread sends a comment every 15 s to every subscriber, which keeps proxies
/// and the browser from closing a quiet stream; `close()` ends every stream (the server's stop waits for them).
final class EventHub: Sendable {
    static let maxSubscribers = 32
    static let queueLimit = 64
    static let keepAliveSeconds = 15.0

    private struct Subscriber {
        weak var stream: ResponseStream?
    }

    private struct State {
        /// Held weakly: libmicrohttpd holds a subscriber's stream while it is sent (its end removes it from here).
        var subscribers: [Subscriber] = []
        var closed = false
        /// Started with the first subscriber, ended by `close()`.
        var keepAlive: WorkerThread?
    }

    private let state = Locked(State())

    /// Sends `data` (one line of JSON) as an event named `name` to every subscriber.
    func publish(_ name: String, json data: String) {
        send(Array("event: \(name)\ndata: \(data)\n\n".utf8))
    }

    private func send(_ message: [UInt8]) {
        for stream in state.withLock({ $0.subscribers.compactMap(\.stream) }) { stream.send(message) }
    }

    /// A stream for one client, starting with `first`, or nil when there are too many already.
    func subscribe(first: [UInt8]) -> ResponseStream? {
        // A stream being released is already nil here: its entry goes.
        let stream = ResponseStream(limit: EventHub.queueLimit, finished: { [weak self] in
            self?.state.withLock { $0.subscribers.removeAll { $0.stream == nil } }
        })
        let added = state.withLock { state -> Bool in
            guard !state.closed, state.subscribers.count < EventHub.maxSubscribers else { return false }
            state.subscribers.append(Subscriber(stream: stream))
            if state.keepAlive == nil {
                state.keepAlive = WorkerThread(name: "reel.serve.keepalive") { [weak self] in self?.keepAlive() }
            }
            return true
        }
        guard added else { return nil }
        stream.send(first)
        return stream
    }

    private func keepAlive() {
        let comment = Array(": keep-alive\n\n".utf8)
        while true {
            let deadline = MonotonicClock.nanoseconds() + Int64(EventHub.keepAliveSeconds * 1e9)
            if state.wait(until: { $0.closed ? true : nil }, deadline: deadline) == true { return }
            send(comment)
        }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Ends every stream (the server is stopping).
    func close() {
        let (streams, thread) = state.withLockNotifying { state -> ([ResponseStream], WorkerThread?) in
            state.closed = true
            return (state.subscribers.compactMap(\.stream), state.keepAlive)
        }
        for stream in streams { stream.end() }
        thread?.join()
    }
}
