import CMicroHTTPD
import Glibc
import Reel
import SystemSupport

/// An HTTP/1.1 server on libmicrohttpd: one epoll thread serves every connection, and handlers never block it.
/// A response that waits — a held playlist reload, a stream between two pictures or events, an answer computed
/// on a work pool — parks its connection (ConnectionParking) and is woken by whoever has what it waits for, so
/// a thousand waiting clients cost no thread. Every bound that keeps a slow or hostile client from exhausting
/// it is set here: connections in all and per address, the idle timeout, the memory a connection's headers
/// may take, the time a request's head may take (RequestDeadlines), and the request body size (413 past it).
///
/// The server owns the daemon; `stop()` (or deinit) resumes every parked connection (their streams end, their
/// pending answers are 503) and then stops it.
final class HTTPServer: @unchecked Sendable {
    struct Limits: Sendable {
        /// A waiting response holds no thread (see ConnectionParking), so this bounds memory and descriptors only.
        var connections: UInt32 = 256
        /// From one address (the machine's own, 127.0.0.1 and ::1, are bounded only by `connections`).
        var connectionsPerAddress: UInt32 = 16
        var idleTimeoutSeconds: UInt32 = 30
        /// A request's line and headers must arrive whole within this, however slowly they trickle in.
        var headSeconds: Double = 10
        /// Request line and headers are read into this (libmicrohttpd answers 431 past it).
        var connectionMemory = 64 * 1024
        var bodyBytes = 64 * 1024
    }

    /// Runs on the polling thread: it must not block (return `.later` for what takes time).
    typealias Handler = @Sendable (HTTPRequest) -> HTTPAnswer

    let address: ListenAddress
    private let handler: Handler
    private let limits: Limits
    private var daemon: OpaquePointer?
    private let deadlines: RequestDeadlines
    /// The connections waiting for a pending answer or a stream's next bytes.
    let parking = ConnectionParking()
    /// Requests under way (from their head to their response sent or their connection gone), which a stop lets
    /// finish: an answer given just before it (a held reload answered by the live stream's stop) is sent.
    private let requestsUnderWay = Locked(0)
    /// How long a stop waits for them.
    static let stopGraceSeconds = 3.0
    private var context: Unmanaged<HTTPServer>?
    /// The port bound (the one asked for, or the one the system chose for port 0).
    private(set) var port: Int = 0

    init(address: ListenAddress, limits: Limits = Limits(), handler: @escaping Handler) {
        self.address = address
        self.limits = limits
        self.handler = handler
        deadlines = RequestDeadlines(headSeconds: limits.headSeconds, perAddress: Int(limits.connectionsPerAddress))
    }

    deinit { stop() }

    /// Binds and starts serving. Throws `ReelError.invalidInput` when the address cannot be bound.
    func start() throws {
        let unmanaged = Unmanaged.passUnretained(self)
        let started: OpaquePointer? = address.withSocketAddress { socketAddress in
            reel_mhd_start(socketAddress, HTTPServer.accessHandler, unmanaged.toOpaque(), HTTPServer.requestCompleted,
                           limits.connections, limits.idleTimeoutSeconds, limits.connectionMemory,
                           limits.connections, HTTPServer.acceptPolicy, HTTPServer.connectionNotice)
        }
        guard let started else {
            throw ReelError.invalidInput("cannot listen on \(address): the address is in use or not this machine's; choose another with --listen")
        }
        daemon = started
        context = unmanaged
        let parking = self.parking
        deadlines.start(tick: { parking.sweep() })
        port = Int(reel_mhd_port(started))
    }

    /// Stops listening and closes every connection: the parked ones are resumed first (as libmicrohttpd requires:
    /// a pending answer not given is a 503, a stream ends), and the requests under way get up to
    /// `stopGraceSeconds` to send their responses. Idle keep-alive connections are simply closed.
    func stop() {
        guard let daemon else { return }
        self.daemon = nil
        parking.close()
        let deadline = MonotonicClock.nanoseconds() + Int64(HTTPServer.stopGraceSeconds * 1e9)
        _ = requestsUnderWay.wait(until: { $0 == 0 ? true : nil }, deadline: deadline)
        MHD_stop_daemon(daemon)
        deadlines.stop()
        context = nil
    }

    /// One request being received: its body, collected over the handler's calls, whether it grew too large, and
    /// the answer it waits for once handled.
    private final class Upload {
        var body: [UInt8] = []
        var tooLarge = false
        var pending: PendingResponse?
    }

    /// libmicrohttpd's MHD_YES and MHD_NO.
    static let yes = MHD_Result(rawValue: 1)!
    static let no = MHD_Result(rawValue: 0)!

    private static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let cls, let connection, let url, let method, let uploadSize, let requestContext else { return HTTPServer.no }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        guard let pending = requestContext.pointee else {
            // The first call: headers only. Keep state for the body that may follow.
            server.deadlines.headReceived(connection)
            server.requestsUnderWay.withLock { $0 += 1 }
            requestContext.pointee = Unmanaged.passRetained(Upload()).toOpaque()
            return HTTPServer.yes
        }
        let upload = Unmanaged<Upload>.fromOpaque(pending).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            if upload.body.count + count > server.limits.bodyBytes {
                upload.tooLarge = true
            } else if let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                    upload.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
            uploadSize.pointee = 0
            return HTTPServer.yes
        }
        let handle = HTTPConnection(pointer: connection)
        if let pending = upload.pending {
            // Resumed: the answer came (or the client left, or the server is stopping).
            return (pending.response ?? .error(503, "the server is stopping")).queue(on: handle, parking: server.parking)
        }
        if upload.tooLarge {
            return HTTPResponse.error(413, "the request body is larger than \(server.limits.bodyBytes) bytes").queue(on: handle, parking: server.parking)
        }
        let request = HTTPRequest(connection: connection, method: String(cString: method), url: String(cString: url),
                                  body: upload.body)
        switch server.handler(request) {
        case .now(let response):
            return response.queue(on: handle, parking: server.parking)
        case .later(let pending):
            upload.pending = pending
            pending.attach(server.parking)
            if server.parking.park(handle, for: pending, unless: { pending.isAnswered }) { return HTTPServer.yes }
            return (pending.response ?? .error(503, "the server is stopping")).queue(on: handle, parking: server.parking)
        }
    }

    private static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
        guard let cls else { return HTTPServer.no }
        return Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().deadlines.mayAccept(address) ? HTTPServer.yes : HTTPServer.no
    }

    private static let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let deadlines = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().deadlines
        if Int32(code.rawValue) == reel_mhd_notify_started() { deadlines.started(connection) } else { deadlines.closed(connection) }
    }

    private static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
        if let cls, let connection { Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().deadlines.requestEnded(connection) }
        guard let requestContext, let pending = requestContext.pointee else { return }
        Unmanaged<Upload>.fromOpaque(pending).release()
        requestContext.pointee = nil
        if let cls { Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestsUnderWay.withLockNotifying { $0 -= 1 } }
    }
}
