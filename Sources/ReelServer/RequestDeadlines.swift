import CMicroHTTPD
import Glibc
import Reel
import SystemSupport

/// Bounds every client's time and share of the server, beyond libmicrohttpd's idle timeout (which a client
/// sending a header line every few seconds resets for ever: two addresses once held all 64 connections so).
/// - A request head (request line and headers) must arrive whole within `headSeconds` of the connection's
///   start or of its previous request's end; a connection that is late is shut down (its socket is
///   libmicrohttpd's, which then closes it). The token is in the head, so this bounds unauthenticated
///   clients too.
/// - Connections per client address: at most `perAddress` from any address but the machine's own
///   (127.0.0.1, ::1), so one remote host leaves room for others.
/// A watchdog thread checks the deadlines twice a second until `stop()` (and sweeps the parked connections).
final class RequestDeadlines: Sendable {
    private struct Connection {
        var socket: Int32
        var address: String
        /// Monotonic nanoseconds the current head started to be awaited.
        var since: Int64
        var headReceived = false
        var cut = false
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        var perAddress: [String: Int] = [:]
        var stopping = false
        /// Checks the deadlines twice a second until `stop()`, which wakes it.
        var watchdog: WorkerThread?
    }

    let headSeconds: Double
    let perAddress: Int
    private let state = Locked(State())

    init(headSeconds: Double, perAddress: Int) {
        self.headSeconds = headSeconds
        self.perAddress = perAddress
    }

    /// Starts the watchdog; `tick` runs on it at each round (the server's sweep of parked connections).
    func start(tick: @escaping @Sendable () -> Void = {}) {
        let thread = WorkerThread(name: "reel.http.deadlines") { [self] in watch(tick: tick) }
        state.withLock { $0.watchdog = thread }
    }

    func stop() {
        state.withLockNotifying { $0.stopping = true }
        state.withLock { $0.watchdog }?.join()
    }

    /// Whether a new connection from `address` may be accepted.
    func mayAccept(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard let key = RequestDeadlines.text(of: address), !RequestDeadlines.isThisMachine(key) else { return true }
        return state.withLock { ($0.perAddress[key] ?? 0) < perAddress }
    }

    func started(_ connection: OpaquePointer) {
        let key = RequestDeadlines.text(of: reel_mhd_client_address(connection)) ?? ""
        let entry = Connection(socket: reel_mhd_connection_socket(connection), address: key, since: MonotonicClock.nanoseconds())
        state.withLock { state in
            state.connections[RequestDeadlines.key(connection)] = entry
            state.perAddress[key, default: 0] += 1
        }
    }

    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.connections.removeValue(forKey: RequestDeadlines.key(connection)) else { return }
            let left = (state.perAddress[entry.address] ?? 1) - 1
            state.perAddress[entry.address] = left > 0 ? left : nil
        }
    }

    /// The head of a request arrived (the handler's first call).
    func headReceived(_ connection: OpaquePointer) {
        state.withLock { $0.connections[RequestDeadlines.key(connection)]?.headReceived = true }
    }

    /// A request was answered: the next one's head is awaited from now.
    func requestEnded(_ connection: OpaquePointer) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            let key = RequestDeadlines.key(connection)
            state.connections[key]?.headReceived = false
            state.connections[key]?.since = now
        }
    }

    private func watch(tick: @Sendable () -> Void) {
        let limit = Int64(headSeconds * 1e9)
        while true {
            let late: [Int32] = state.withLock { state in
                let now = MonotonicClock.nanoseconds()
                var late: [Int32] = []
                for (key, entry) in state.connections where !entry.headReceived && !entry.cut && now - entry.since > limit {
                    state.connections[key]?.cut = true
                    late.append(entry.socket)
                }
                return late
            }
            // The socket stays open (libmicrohttpd closes it): no descriptor can be reused under its thread.
            for socket in late where socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            tick()
            let stopping = state.wait(until: { $0.stopping ? true : nil }, deadline: MonotonicClock.nanoseconds() + 500_000_000)
            if stopping == true { return }
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    static func isThisMachine(_ address: String) -> Bool { address == "127.0.0.1" || address == "::1" || address == "::ffff:127.0.0.1" }

    /// An address as text (`192.0.2.7`, `2001:db8::1`), without the port.
    static func text(of address: UnsafePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &inet, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var inet6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &inet6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
