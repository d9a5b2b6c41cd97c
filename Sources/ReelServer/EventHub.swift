import Reel
import SystemSupport

/// Server-Sent Events for every subscriber of `/api/events`: each has a bounded queue (the oldest events
/// are dropped when a client reads too slowly, so a stalled browser cannot grow the server's memory), a
/// comment every 15 s keeps proxies and the browser from closing a quiet stream, and `close()` ends every
/// stream (the server's stop waits for them).
final class EventHub: @unchecked Sendable {
    static let maxSubscribers = 32
    static let queueLimit = 64
    static let keepAliveSeconds = 15.0

    private final class Subscriber: @unchecked Sendable {
        var queue: [[UInt8]] = []
    }

    private let condition = Condition()
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    private var closed = false

    /// Sends `data` (one line of JSON) as an event named `name` to every subscriber.
    func publish(_ name: String, json data: String) {
        let message = Array("event: \(name)\ndata: \(data)\n\n".utf8)
        condition.withLock {
            for subscriber in subscribers.values {
                if subscriber.queue.count >= EventHub.queueLimit { subscriber.queue.removeFirst() }
                subscriber.queue.append(message)
            }
            condition.broadcast()
        }
    }

    /// A stream for one client, or nil when there are too many already.
    func subscribe(first: [UInt8]) -> ResponseStream? {
        let subscriber = Subscriber()
        let key = ObjectIdentifier(subscriber)
        let added = condition.withLock { () -> Bool in
            guard !closed, subscribers.count < EventHub.maxSubscribers else { return false }
            subscribers[key] = subscriber
            subscriber.queue.append(first)
            return true
        }
        guard added else { return nil }
        return ResponseStream(next: { [self] in self.next(for: subscriber) }, finished: { [self] in
            condition.withLock { _ = subscribers.removeValue(forKey: key) }
        })
    }

    private func next(for subscriber: Subscriber) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = MonotonicClock.nanoseconds() + Int64(EventHub.keepAliveSeconds * 1e9)
        while subscriber.queue.isEmpty && !closed {
            if !condition.wait(untilNanoseconds: deadline) { return Array(": keep-alive\n\n".utf8) }
        }
        if closed { return nil }
        return subscriber.queue.removeFirst()
    }

    var subscriberCount: Int { condition.withLock { subscribers.count } }

    /// Ends every stream (the server is stopping).
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
