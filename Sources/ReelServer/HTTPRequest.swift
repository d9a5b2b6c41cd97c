import CMicroHTTPD

/// A request as received: copied out of libmicrohttpd's connection when the head and body are whole, so it
/// is a plain value that a handler may pass to the work pool and keep after the connection is gone.
struct HTTPRequest: Sendable {
    let method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    let path: String
    let body: [UInt8]
    /// Header names lowercased (HTTP's are case-insensitive); the first of repeated ones.
    private let headers: [String: String]
    private let queries: [String: String]
    private let cookies: [String: String]

    init(method: String, path: String, body: [UInt8] = [], headers: [String: String] = [:],
         queries: [String: String] = [:], cookies: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.queries = queries
        self.cookies = cookies
    }

    /// Copies the request of `connection` (on libmicrohttpd's thread, while its handler runs).
    init(connection: OpaquePointer, method: String, url: String, body: [UInt8]) {
        self.init(method: method, path: url, body: body,
                  headers: HTTPRequest.values(of: connection, reel_mhd_header_kind()),
                  queries: HTTPRequest.values(of: connection, reel_mhd_query_kind()),
                  cookies: HTTPRequest.values(of: connection, reel_mhd_cookie_kind()))
    }

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    func query(_ name: String) -> String? { queries[name] }
    func cookie(_ name: String) -> String? { cookies[name] }

    private final class Collected {
        var values: [String: String] = [:]
    }

    private static func values(of connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
        let collected = Collected()
        withExtendedLifetime(collected) {
            reel_mhd_values(connection, kind, { context, key, value in
                guard let context, let key, let value else { return }
                let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                let name = String(cString: key)
                if collected.values[name] == nil { collected.values[name] = String(cString: value) }
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.values
    }
}
