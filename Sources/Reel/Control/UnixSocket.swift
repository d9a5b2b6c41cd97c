import FoundationEssentials
import Glibc

/// Unix-domain stream sockets for the control socket and `reel ctl`: one owner per descriptor (the caller
/// that gets it closes it), errors as `ReelError` with what to do.
package enum UnixSocket {
    /// The longest path a socket address holds (sun_path, with its terminating zero).
    static let maximumPathBytes = 107

    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathBytes else {
            throw ReelError.invalidInput("control socket path \(path) is \(bytes.count) bytes long: use at most \(maximumPathBytes) (a shorter folder)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// A descriptor that never blocks and is not inherited by child processes.
    static func makeNonBlockingAndCloseOnExec(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Connects to a listening socket; the descriptor is the caller's. Throws `deviceNotFound` when nothing
    /// listens there.
    package static func connect(to path: String) throws -> Int32 {
        var address = try address(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ReelError.runtime("socket: \(String(cString: strerror(errno)))") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ReelError(.deviceNotFound, "no recording listens on \(path) (\(reason)): start one with reel record --control \(path)")
        }
        return descriptor
    }

    /// Binds and listens at `path` with mode 0600, non-blocking. A socket file nobody listens on (left by a
    /// crash) is replaced; a live one, or any other file, is an error.
    static func listen(at path: String) throws -> Int32 {
        var address = try address(path)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ReelError.invalidInput("\(path) exists and is not a socket: choose another control socket path")
            }
            if let live = try? connect(to: path) {
                close(live)
                throw ReelError.invalidInput("another recording listens on \(path): stop it or choose another control socket path")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ReelError.runtime("socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // Only the owner may connect; nobody can before listen, so setting the mode after bind leaves no window.
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(path)
            throw ReelError.invalidInput("cannot listen on \(path) (\(reason)): check that its folder exists and is writable")
        }
        return descriptor
    }
}
