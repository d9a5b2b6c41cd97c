import CMicroHTTPD
import Glibc
import Reel

/// An HTTP/1.1 server on libmicrohttpd: its own polling thread and one thread per connection, so a handler
/// may block (a streaming response waits for its next preview picture or event). Every bound that keeps a
/// slow or hostile client from exhausting it is set here: connections in all and per address, the idle
/// timeout, the memory a connection's headers may take, and the request body size (413 past it).
///
/// The server owns the daemon; `stop()` (or deinit) stops it after every connection's thread has ended, so
/// streaming responses must be woken first (see `ResponseStream.Producer` and the hubs' `close()`).
final class HTTPServer: @unchecked Sendable {
    struct Limits: Sendable {
        var connections: UInt32 = 64
        /// From one address (the machine's own, 127.0.0.1 and ::1, are bounded only by `connections`).
        var connectionsPerAddress: UInt32 = 16
        var idleTimeoutSeconds: UInt32 = 30
        /// A request's line and headers must arrive whole within this, however slowly they trickle in.
        var headSeconds: Double = 10
        /// Request line and headers are read into this (libmicrohttpd answers 431 past it).
        var connectionMemory = 64 * 1024
        var bodyBytes = 64 * 1024
    }

    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    let address: ListenAddress
    private let handler: Handler
    private let limits: Limits
    private var daemon: OpaquePointer?
    private let deadlines: RequestDeadlines
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
        deadlines.start()
        port = Int(reel_mhd_port(started))
    }

    /// Stops listening and waits for every connection's thread to end.
    func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
        deadlines.stop()
        context = nil
    }

    /// One request being received: its body, collected over the handler's calls, and whether it grew too large.
    private final class Upload {
        var body: [UInt8] = []
        var tooLarge = false
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
        let request = HTTPRequest(connection: connection, method: String(cString: method), url: String(cString: url),
                                  body: upload.body)
        let response = upload.tooLarge
            ? HTTPResponse.error(413, "the request body is larger than \(server.limits.bodyBytes) bytes")
            : server.handler(request)
        return response.queue(on: connection)
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
    }
}

/// A request, valid while its handler runs (headers, query and cookies are read from the connection).
struct HTTPRequest: @unchecked Sendable {
    private let connection: OpaquePointer
    let method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    let path: String
    let body: [UInt8]

    init(connection: OpaquePointer, method: String, url: String, body: [UInt8]) {
        self.connection = connection
        self.method = method
        self.path = url
        self.body = body
    }

    func header(_ name: String) -> String? { reel_mhd_header(connection, name).map { String(cString: $0) } }
    func query(_ name: String) -> String? { reel_mhd_query(connection, name).map { String(cString: $0) } }
    func cookie(_ name: String) -> String? { reel_mhd_cookie(connection, name).map { String(cString: $0) } }
}
