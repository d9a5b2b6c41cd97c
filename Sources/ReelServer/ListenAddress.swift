import Glibc
import Reel

/// Where `reel serve` listens: `HOST:PORT` with an IPv4 address, `[IPv6]:PORT`, or `localhost:PORT`; a port
/// alone means loopback. Only loopback addresses may be served without a token (see AccessPolicy).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    enum Family: Sendable { case ipv4, ipv6 }
    let host: String
    let port: Int
    let family: Family

    public static let defaultValue = "127.0.0.1:8080"

    init(parsing text: String) throws {
        let bad = { (why: String) in
            ReelError.invalidInput("--listen \(text): \(why); use HOST:PORT, e.g. 127.0.0.1:8080, [::1]:8080 or 0.0.0.0:8080")
        }
        var host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw bad("an IPv6 address needs brackets and a port")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw bad("an IPv6 address needs brackets") }
        } else {
            host = "127.0.0.1"
            portText = Substring(text)
        }
        guard let port = Int(portText), (0...65535).contains(port) else { throw bad("the port must be 0 to 65535") }
        if host.isEmpty || host == "localhost" { host = "127.0.0.1" }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = .ipv4
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = .ipv6
        } else {
            throw bad("'\(host)' is not an IP address")
        }
        self.host = host
        self.port = port
    }

    /// 127.0.0.0/8 or ::1: only this machine can connect.
    var isLoopback: Bool {
        switch family {
        case .ipv4: return host.hasPrefix("127.")
        case .ipv6: return host == "::1"
        }
    }

    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The address as a `sockaddr` for the duration of `body`.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}
