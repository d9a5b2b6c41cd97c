import CMicroHTTPD
import SystemSupport

/// A body produced while it is sent (Server-Sent Events, an MJPEG stream): its source `send`s chunks from any
/// thread and `end`s it; the server's polling thread takes them as the client's socket can take them. While
/// there is nothing to send, the connection is parked (no thread waits for it) and `send` wakes it.
///
/// At most `limit` chunks wait; past that the oldest waiting one is dropped, so a slow client skips (the
/// newest preview picture replaces an unsent one) and never grows the server's memory or holds up the source.
/// libmicrohttpd releases the stream when the response is done (the client left, or `end`); `finished` is
/// called then.
final class ResponseStream: ParkedResponse {
    private struct State {
        var queue: [[UInt8]] = []
        var ended = false
        var clientLeft = false
        /// The chunk being sent and how much of it is sent.
        var current: [UInt8] = []
        var sent = 0
        /// Set when the response is queued on a connection.
        var connection: HTTPConnection?
        var parking: ConnectionParking?

        var hasSomething: Bool { sent < current.count || !queue.isEmpty || ended || clientLeft }
    }

    let limit: Int
    private let state = Locked(State())
    private let finished: @Sendable () -> Void

    init(limit: Int, finished: @escaping @Sendable () -> Void = {}) {
        self.limit = max(1, limit)
        self.finished = finished
    }

    deinit { finished() }

    /// Queues `chunk` (not empty) for the client.
    func send(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        let parking = state.withLock { state -> ConnectionParking? in
            guard !state.ended else { return nil }
            if state.queue.count >= limit { state.queue.removeFirst() }
            state.queue.append(chunk)
            return state.parking
        }
        parking?.wake(self)
    }

    /// Ends the response once what is queued is sent.
    func end() {
        let parking = state.withLock { state -> ConnectionParking? in
            state.ended = true
            return state.parking
        }
        parking?.wake(self)
    }

    func clientLeft() { state.withLock { $0.clientLeft = true } }

    /// How many chunks wait to be sent.
    var waiting: Int { state.withLock { $0.queue.count } }

    func makeResponse(connection: HTTPConnection, parking: ConnectionParking) -> OpaquePointer? {
        state.withLock { state in
            state.connection = connection
            state.parking = parking
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        let response = MHD_create_response_from_callback(reel_mhd_size_unknown(), 16 * 1024, ResponseStream.read, context,
                                                         ResponseStream.release)
        if response == nil { Unmanaged<ResponseStream>.fromOpaque(context).release() }
        return response
    }

    private enum Step {
        case copied(Int)
        case end
        case failed
        /// Nothing to send: park until `send`.
        case wait(HTTPConnection, ConnectionParking)
    }

    /// libmicrohttpd asks for up to `capacity` bytes, on its polling thread.
    private func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        while true {
            let step = state.withLock { state -> Step in
                if state.clientLeft { return .failed }
                if state.sent == state.current.count {
                    guard !state.queue.isEmpty else {
                        guard !state.ended, let connection = state.connection, let parking = state.parking else { return .end }
                        return .wait(connection, parking)
                    }
                    state.current = state.queue.removeFirst()
                    state.sent = 0
                }
                let count = min(capacity, state.current.count - state.sent)
                let offset = state.sent
                state.current.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
                state.sent += count
                return .copied(count)
            }
            switch step {
            case .copied(let count): return count
            case .end: return reel_mhd_end_of_stream()
            case .failed: return reel_mhd_end_with_error()
            case .wait(let connection, let parking):
                // Zero bytes with the connection suspended: libmicrohttpd asks again once it is resumed.
                if parking.park(connection, for: self, unless: { state.withLock { $0.hasSomething } }) { return 0 }
                if parking.isClosed { return reel_mhd_end_with_error() }
            }
        }
    }

    private static let read: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        guard let context, let buffer else { return reel_mhd_end_with_error() }
        return Unmanaged<ResponseStream>.fromOpaque(context).takeUnretainedValue().read(into: UnsafeMutableRawPointer(buffer), capacity: capacity)
    }

    private static let release: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<ResponseStream>.fromOpaque(context).release()
    }
}
