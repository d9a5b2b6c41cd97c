import Foundation
import Glibc

/// A plain HTTP/1.1 client on a TCP socket (for `reel serve`'s tests), so tests send exactly the bytes they mean (bad requests, huge
/// headers, forged Origins) and read responses as they arrive (event streams, MJPEG).
public struct HTTPTestClient {
    public let port: Int

    public init(port: Int) { self.port = port }

    public struct Response {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
        public var object: [String: Any] { json as? [String: Any] ?? [:] }
    }

    /// Sends a request and reads the whole response (the connection is closed by `Connection: close`).
    public func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:],
                 host: String? = nil, timeout: Double = 30) throws -> Response {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        for (name, value) in headers { lines.append("\(name): \(value)") }
        if let body { lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] }
        let raw = Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")).utf8)
        let connection = try Connection(port: port)
        try connection.send(raw)
        let bytes = connection.readAll(timeout: timeout)
        return try Self.parse(bytes)
    }

    /// Sends raw bytes, returns what comes back until the server closes (or the timeout).
    public func raw(_ bytes: [UInt8], timeout: Double = 10) throws -> [UInt8] {
        let connection = try Connection(port: port)
        try connection.send(bytes)
        return connection.readAll(timeout: timeout)
    }

    public static func parse(_ bytes: [UInt8]) throws -> Response {
        guard let split = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw TestError("no HTTP response head in \(bytes.count) bytes")
        }
        let head = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], index = 0
        while let end = bytes[index...].firstRange(of: Array("\r\n".utf8)) {
            guard let size = Int(String(decoding: bytes[index..<end.lowerBound], as: UTF8.self), radix: 16), size > 0 else { break }
            let start = end.upperBound
            guard start + size <= bytes.count else { out += bytes[start...]; break }
            out += bytes[start..<start + size]
            index = start + size + 2
            if index >= bytes.count { break }
        }
        return out
    }

    /// An open TCP connection to the server (closed on deinit).
    public final class Connection {
        let descriptor: Int32

        /// `source`: the local address to connect from (another of the loopback range, 127.0.0.2 ...).
        public init(port: Int, from source: String? = nil) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                local.sin_addr.s_addr = inet_addr(source)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard bound == 0 else {
                    close(descriptor)
                    throw TestError("cannot bind to \(source): \(String(cString: strerror(errno)))")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(descriptor)
                throw TestError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(descriptor) }

        public func send(_ bytes: [UInt8]) throws {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { throw TestError("send failed: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }

        /// Reads what arrives within `timeout` seconds (nil when nothing did, [] when the server closed).
        public func read(timeout: Double) -> [UInt8]? {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count <= 0 ? [] : Array(buffer[..<count])
        }

        public func readAll(timeout: Double) -> [UInt8] {
            var bytes: [UInt8] = []
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline, let chunk = read(timeout: deadline.timeIntervalSinceNow), !chunk.isEmpty { bytes += chunk }
            return bytes
        }

        /// Reads until `bytes` holds `needle` `count` times, or the timeout.
        public func read(until needle: String, count: Int = 1, timeout: Double) -> [UInt8] {
            var bytes: [UInt8] = []
            let pattern = Array(needle.utf8)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline, occurrences(of: pattern, in: bytes) < count {
                guard let chunk = read(timeout: deadline.timeIntervalSinceNow), !chunk.isEmpty else { break }
                bytes += chunk
            }
            return bytes
        }

        private func occurrences(of pattern: [UInt8], in bytes: [UInt8]) -> Int {
            var count = 0, index = bytes.startIndex
            while let found = bytes[index...].firstRange(of: pattern) {
                count += 1
                index = found.upperBound
            }
            return count
        }
    }
}

public struct TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
