import CMicroHTTPD
import FoundationEssentials
import Glibc
import Reel
import SystemSupport

/// What a handler gives for a request: a response now, or one that comes later (the connection waits parked,
/// holding no thread).
enum HTTPAnswer: Sendable {
    case now(HTTPResponse)
    case later(PendingResponse)
}

/// A response: a status, headers and a body held in memory, a file range (sent by the kernel from the
/// descriptor, which libmicrohttpd then owns and closes), or a stream produced while it is sent.
struct HTTPResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        /// The descriptor is handed to libmicrohttpd, which closes it when the response is done.
        case file(FileDescriptor, offset: Int64, length: Int64)
        case stream(ResponseStream)
    }

    var status: Int
    var headers: [(String, String)]
    var body: Body

    init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Security headers every response carries: no sniffing, no framing by other sites, no referrer leak.
    static let commonHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes([UInt8](data)))
    }

    /// A JSON error: `{"error": message}` with a 4xx or 5xx status.
    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }

    static func text(_ text: String, contentType: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// Hands the response to libmicrohttpd for `connection` (a stream waits parked in `parking` for its bytes).
    func queue(on connection: HTTPConnection, parking: ConnectionParking) -> MHD_Result {
        let response: OpaquePointer?
        switch body {
        case .bytes(let bytes):
            response = bytes.withUnsafeBytes { reel_mhd_response_copying($0.count, $0.baseAddress) }
        case .file(let descriptor, let offset, let length):
            response = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor.raw, UInt64(offset))
            // libmicrohttpd closes the descriptor with the response; without one it stays ours (and closes).
            if response != nil { _ = descriptor.release() }
        case .stream(let stream):
            response = stream.makeResponse(connection: connection, parking: parking)
        }
        guard let response else { return HTTPServer.no }
        for (name, value) in HTTPResponse.commonHeaders + headers { MHD_add_response_header(response, name, value) }
        let queued = MHD_queue_response(connection.pointer, UInt32(status), response)
        MHD_destroy_response(response)
        return queued
    }
}
