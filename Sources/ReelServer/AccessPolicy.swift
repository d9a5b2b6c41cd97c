/// Who may use `reel serve`, checked before every route:
/// - a token, when one is set (it must be when listening beyond loopback): `Authorization: Bearer TOKEN`, or
///   the `reel_token` cookie that opening `/?token=TOKEN` sets (HttpOnly, SameSite=Strict);
/// - the Host header must name the address served (a page on another site that resolves its own name to
///   127.0.0.1, DNS rebinding, is refused);
/// - state-changing requests (POST, DELETE) from a browser must come from the served page itself: their
///   Origin must be this server's, and a cross-site fetch (Sec-Fetch-Site) is refused. Programs such as curl
///   send no Origin and pass with the token.
struct AccessPolicy: Sendable {
    let token: String?
    /// Host header values accepted: the address served, and for loopback `localhost` too.
    let hosts: Set<String>

    static let cookieName = "reel_token"

    init(token: String?, address: ListenAddress, port: Int) {
        self.token = token
        var hosts: Set<String> = [ListenAddress.hostHeader(address.host, family: address.family, port: port)]
        if address.isLoopback {
            hosts.insert("localhost:\(port)")
            hosts.insert(address.family == .ipv4 ? "[::1]:\(port)" : "127.0.0.1:\(port)")
        }
        self.hosts = hosts
    }

    enum Verdict: Equatable, Sendable {
        case allowed
        /// 401: no token or a wrong one.
        case unauthorized(String)
        /// 403: a foreign Host, Origin or cross-site request.
        case forbidden(String)
    }

    /// What the request's headers allow. `header` reads a request header, `cookie` a cookie.
    func check(method: String, header: (String) -> String?, cookie: (String) -> String?) -> Verdict {
        guard let host = header("Host")?.lowercased(), hosts.contains(host) else {
            return .forbidden("the Host header must name this server (\(hosts.sorted().joined(separator: ", ")))")
        }
        if let token {
            let bearer = header("Authorization").flatMap { value -> String? in
                value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
            }
            guard let given = bearer ?? cookie(AccessPolicy.cookieName) else {
                return .unauthorized("a token is needed: send 'Authorization: Bearer TOKEN' or open /?token=TOKEN once")
            }
            guard AccessPolicy.constantTimeEqual(given, token) else { return .unauthorized("wrong token") }
        }
        if method != "GET" && method != "HEAD" {
            if let site = header("Sec-Fetch-Site"), site != "same-origin" && site != "none" {
                return .forbidden("cross-site requests are refused (Sec-Fetch-Site: \(site))")
            }
            if let origin = header("Origin")?.lowercased() {
                let allowed = hosts.map { "http://\($0)" }
                guard allowed.contains(origin) else {
                    return .forbidden("requests from other pages are refused (Origin: \(origin))")
                }
            }
        }
        return .allowed
    }

    /// Compares without stopping at the first difference, so response times do not reveal the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}

extension ListenAddress {
    /// How a Host header names this server: `127.0.0.1:8080`, `[::1]:8080`.
    static func hostHeader(_ host: String, family: Family, port: Int) -> String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
