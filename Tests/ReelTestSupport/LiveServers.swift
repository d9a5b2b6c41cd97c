import Foundation
import Glibc

/// Real servers a live push is tested against, each on a free loopback port, started and stopped by the test:
/// nginx with its RTMP module (recording what it is sent), srt-live-transmit as an SRT listener writing the
/// MPEG-TS it receives, and a TCP proxy that stalls and then resets the connection (Tests/LiveServers).
public enum LiveServers {
    /// A port nothing listens on now (bound to 0 and let go), over TCP or UDP.
    public static func freePort(udp: Bool = false) throws -> Int {
        let descriptor = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PictureComparison.SetupFailure("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw PictureComparison.SetupFailure("bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on the loopback port now.
    public static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func require(_ program: String) throws {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw PictureComparison.SetupFailure("\(program) is missing: `make test` installs it (see the Makefile's PACKAGES)")
        }
    }

    /// Polls `condition` every 20 ms until it holds (true) or `seconds` pass (false).
    public static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    static var scriptFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../LiveServers").standardizedFileURL.path
    }
}

/// A network namespace of the test's own (iproute2, as root): its own loopback, and TCP buffers set small so a
/// stalled peer blocks a sender within a second instead of after the megabytes Linux buffers by default. The
/// servers and Reel run inside it through `ip netns exec`.
public final class NetworkNamespace {
    public let name: String

    public init(tcpSendBuffer: String = "4096 16384 65536", tcpReceiveBuffer: String = "4096 16384 65536") throws {
        try LiveServers.require("/usr/sbin/ip")
        name = "reel-test-\(UUID().uuidString.prefix(8))"
        let made = try Processes.run("/usr/sbin/ip", ["netns", "add", name])
        guard made.status == 0 else { throw PictureComparison.SetupFailure("ip netns add (as root): \(made.standardError)") }
        let setUp = try Processes.run("/usr/sbin/ip", ["netns", "exec", name, "/bin/sh", "-c",
            "ip link set lo up && sysctl -q -w net.ipv4.tcp_wmem='\(tcpSendBuffer)' net.ipv4.tcp_rmem='\(tcpReceiveBuffer)'"])
        guard setUp.status == 0 else { throw PictureComparison.SetupFailure("setting up \(name): \(setUp.standardError)") }
    }

    /// `executable arguments` run inside the namespace (ip execs it: the process is the program itself).
    public func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        ("/usr/sbin/ip", ["netns", "exec", name, executable] + arguments)
    }

    /// Whether something accepts TCP connections on the namespace's loopback port now.
    public func accepts(port: Int) -> Bool {
        let (executable, arguments) = command("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"])
        return (try? Processes.run(executable, arguments, timeout: 5).status) == 0
    }

    deinit { _ = try? Processes.run("/usr/sbin/ip", ["netns", "delete", name]) }
}

/// nginx with libnginx-mod-rtmp on a free loopback port: application `live` records every stream it is sent
/// into `recordings/` (a file per publish: NAME-TIMESTAMP.flv); no other application exists.
public final class RTMPServer {
    public let port: Int
    public let folder: String
    public var recordings: String { folder + "/recordings" }
    private var running: Processes.Running?
    private let namespace: NetworkNamespace?

    /// On `port`, a free one by default; in `namespace` (whose ports are all free) on 1935, RTMP's own.
    public init(folder: String, port: Int? = nil, namespace: NetworkNamespace? = nil) throws {
        try LiveServers.require("/usr/sbin/nginx")
        self.folder = folder
        self.namespace = namespace
        if let port { self.port = port } else { self.port = namespace == nil ? try LiveServers.freePort() : 1935 }
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        // nginx's workers run as nobody when it is started as root: they must be able to write here.
        chmod(folder, 0o777)
        chmod(recordings, 0o777)
        let template = try String(contentsOfFile: LiveServers.scriptFolder + "/nginx-rtmp.conf", encoding: .utf8)
        try template.replacingOccurrences(of: "@FOLDER@", with: folder).replacingOccurrences(of: "@PORT@", with: String(self.port))
            .write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        try start()
    }

    public var url: String { "rtmp://127.0.0.1:\(port)/live" }

    /// Starts nginx (again) and waits until it accepts connections.
    public func start() throws {
        let arguments = ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/error.log"]
        let (executable, all) = namespace?.command("/usr/sbin/nginx", arguments) ?? ("/usr/sbin/nginx", arguments)
        let started = try Processes.start(executable, all)
        running = started
        guard LiveServers.waitUntil(seconds: 10, { accepts() || !started.process.isRunning }),
              started.process.isRunning else {
            let result = Processes.finish(started, timeout: 1)
            let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""
            throw PictureComparison.SetupFailure("nginx did not start on port \(port): \(result.standardError) \(log)")
        }
    }

    /// Stops nginx at once (SIGTERM: connections are dropped, as when a server dies) and waits for its port to close.
    public func stop() {
        guard let running else { return }
        self.running = nil
        running.process.terminate()
        _ = Processes.finish(running, timeout: 5)
        _ = LiveServers.waitUntil(seconds: 5) { !accepts() }
    }

    private func accepts() -> Bool { namespace?.accepts(port: port) ?? LiveServers.accepts(port: port) }

    /// The recorded streams, oldest first.
    public func recordedFiles() -> [String] {
        Scratch.files(in: recordings).filter { $0.hasSuffix(".flv") }.sorted().map { recordings + "/" + $0 }
    }

    deinit { stop() }
}

/// srt-live-transmit listening on a free loopback UDP port, writing what one caller sends to `output`, and
/// ending when that caller disconnects (so its file is complete).
public final class SRTListener {
    public let port: Int
    public let output: String
    private var running: Processes.Running?

    /// `passphrase`: the listener encrypts, and takes only callers that give the same one.
    public init(output: String, passphrase: String? = nil) throws {
        try LiveServers.require("/usr/bin/srt-live-transmit")
        self.output = output
        port = try LiveServers.freePort(udp: true)
        let secret = passphrase.map { "&passphrase=\($0)" } ?? ""
        let command = "exec /usr/bin/srt-live-transmit -q -a no 'srt://127.0.0.1:\(port)?mode=listener\(secret)' file://con > '\(output)'"
        running = try Processes.start("/bin/sh", ["-c", command])
        // SRT listens on UDP: nothing to connect to before a caller. It is ready once its socket is bound, which
        // /proc/net/udp shows.
        guard FileManager.default.isReadableFile(atPath: "/proc/net/udp") else {
            throw PictureComparison.SetupFailure("cannot read /proc/net/udp to see srt-live-transmit bind its port")
        }
        guard LiveServers.waitUntil(seconds: 10, { SRTListener.udpPortBound(port) }) else {
            throw PictureComparison.SetupFailure("srt-live-transmit did not bind UDP port \(port)")
        }
    }

    public var url: String { "srt://127.0.0.1:\(port)" }

    /// Waits for the listener to end (its caller left), at most `timeout` seconds; its exit status.
    @discardableResult
    public func finish(timeout: Double = 15) -> ProcessResult? {
        guard let running else { return nil }
        self.running = nil
        return Processes.finish(running, timeout: timeout)
    }

    /// Whether a socket's local address (the second column of /proc/net/udp; not a peer's) has `port`.
    static func udpPortBound(_ port: Int) -> Bool {
        let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
        let suffix = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().contains { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return columns.count > 1 && columns[1].hasSuffix(suffix)
        }
    }

    deinit { finish(timeout: 0) }
}

/// Tests/LiveServers/fault_proxy.py between a client and a TCP server: passes bytes both ways, then, for the
/// first connection, stops reading from the client (a stalled network) and finally resets it; later
/// connections pass untouched.
public final class FaultProxy {
    public let port: Int
    private var running: Processes.Running?

    /// In `namespace` it listens on 1936.
    public init(target: Int, passSeconds: Double, stallSeconds: Double, namespace: NetworkNamespace? = nil) throws {
        port = namespace == nil ? try LiveServers.freePort() : 1936
        let arguments = [LiveServers.scriptFolder + "/fault_proxy.py", String(port), String(target), String(passSeconds), String(stallSeconds)]
        let (executable, all) = namespace?.command("/usr/bin/python3", arguments) ?? ("/usr/bin/python3", arguments)
        let started = try Processes.start(executable, all)
        running = started
        guard LiveServers.waitUntil(seconds: 10, { started.outputSoFar().contains("listening") || !started.process.isRunning }),
              started.process.isRunning else {
            throw PictureComparison.SetupFailure("the fault proxy did not start: \(Processes.finish(started, timeout: 1).standardError)")
        }
    }

    /// Stops the proxy; what it logged (connections, the stall, the reset).
    public func stop() -> String {
        guard let running else { return "" }
        self.running = nil
        running.process.terminate()
        return Processes.finish(running, timeout: 5).standardOutput
    }

    deinit { _ = stop() }
}
