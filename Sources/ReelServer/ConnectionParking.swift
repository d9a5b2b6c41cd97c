import CMicroHTTPD
import SystemSupport

/// A connection of libmicrohttpd's: handled on its polling thread, and resumed (only) through ConnectionParking
/// from any thread.
struct HTTPConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A response that can wait with its connection parked: a held answer (PendingResponse) or a stream waiting for
/// its next bytes (ResponseStream).
protocol ParkedResponse: AnyObject, Sendable {
    /// The client hung up while the response waited: end it when its connection is resumed. Called with the
    /// parking's lock held: it must only mark the response, not wake it.
    func clientLeft()
}

/// The connections that wait for something other than the network — a held playlist reload, a stream's next
/// bytes, an answer being computed on the work pool — suspended in libmicrohttpd, so no thread waits for them:
/// the server's one polling thread goes on with the others, and whoever has what one waits for wakes it.
///
/// libmicrohttpd's rules, kept here in one place: a connection is suspended only from its own handler or content
/// reader (the polling thread), resumed exactly once per suspension (resuming one that is not suspended is
/// undefined), and none may be suspended when the daemon stops (`close()` resumes them all first). The check
/// that decides to suspend runs under the same lock as `wake`, so a wake cannot fall between them and be lost.
final class ConnectionParking: Sendable {
    private struct Entry {
        let connection: HTTPConnection
        let socket: Int32
        let response: any ParkedResponse
    }

    private struct State {
        var parked: [ObjectIdentifier: Entry] = [:]
        var closed = false
    }

    private let state = Locked(State())

    /// Suspends `connection` until `wake(response)`, unless `ready()` (whether the response has something
    /// already) is true or the server is stopping: false then, and the caller goes on at once.
    func park(_ connection: HTTPConnection, for response: any ParkedResponse, unless ready: () -> Bool) -> Bool {
        state.withLock { state in
            guard !state.closed, !ready() else { return false }
            let socket = reel_mhd_connection_socket(connection.pointer)
            MHD_suspend_connection(connection.pointer)
            state.parked[ObjectIdentifier(response)] = Entry(connection: connection, socket: socket, response: response)
            return true
        }
    }

    /// Resumes the connection `response` is parked on, if it is; libmicrohttpd then calls its handler or reader
    /// again on the polling thread.
    func wake(_ response: any ParkedResponse) {
        state.withLock { state in
            guard let entry = state.parked.removeValue(forKey: ObjectIdentifier(response)) else { return }
            MHD_resume_connection(entry.connection.pointer)
        }
    }

    /// Ends the waits of clients that hung up (libmicrohttpd does not watch a suspended connection's socket, so a
    /// closed browser tab would otherwise hold its slot until the stream's next bytes). Called twice a second.
    func sweep() {
        state.withLock { state in
            for (key, entry) in state.parked where entry.socket >= 0 && reel_socket_hung_up(entry.socket) != 0 {
                entry.response.clientLeft()
                state.parked[key] = nil
                MHD_resume_connection(entry.connection.pointer)
            }
        }
    }

    /// Resumes every parked connection and parks no more: the daemon is about to stop.
    func close() {
        state.withLock { state in
            state.closed = true
            for entry in state.parked.values { MHD_resume_connection(entry.connection.pointer) }
            state.parked = [:]
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// How many connections wait now.
    var count: Int { state.withLock { $0.parked.count } }
}
