import Reel
import FoundationEssentials
import Glibc
import SystemSupport

/// Unix-domain stream sockets for the control socket and `reel ctl`: each descriptor a `FileDescriptor` that
/// closes itself, errors as `ReelError` with what to do.
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

    /// A new stream socket, close-on-exec, with `flags` (SOCK_NONBLOCK).
    private static func makeSocket(flags: Int32 = 0) throws -> FileDescriptor {
        do {
            return try FileDescriptor.opening("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | flags, 0) }
        } catch {
            throw ReelError.runtime("\(error)")
        }
    }

    /// Connects to a listening socket. Throws `deviceNotFound` when nothing listens there.
    package static func connect(to path: String) throws -> FileDescriptor {
        var address = try address(path)
        let descriptor = try makeSocket()
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor.raw, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            throw ReelError(.deviceNotFound, "no recording listens on \(path) (\(reason)): start one with reel record --control \(path)")
        }
        return descriptor
    }

    /// Binds and listens at `path` with mode 0600, non-blocking. A socket file nobody listens on (left by a
    /// crash) is replaced; a live one, or any other file, is an error. The socket is made under a hidden name
    /// beside `path` and renamed into place once it listens, so a client that finds the path can connect (a
    /// bound socket refuses connections until it listens).
    static func listen(at path: String) throws -> FileDescriptor {
        var address = try address(path)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ReelError.invalidInput("\(path) exists and is not a socket: choose another control socket path")
            }
            if (try? connect(to: path)) != nil {
                throw ReelError.invalidInput("another recording listens on \(path): stop it or choose another control socket path")
            }
        }
        let making = hiddenName(for: path)
        if let making { address = try UnixSocket.address(making) }
        let bindPath = making ?? path
        unlink(bindPath)
        let descriptor = try makeSocket(flags: Int32(SOCK_NONBLOCK.rawValue))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor.raw, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // Only the owner may connect; nobody can before listen, so setting the mode after bind leaves no window.
        guard bound == 0, chmod(bindPath, 0o600) == 0, Glibc.listen(descriptor.raw, 16) == 0,
              making.map({ rename($0, path) == 0 }) ?? true else {
            let reason = String(cString: strerror(errno))
            unlink(bindPath)
            throw ReelError.invalidInput("cannot listen on \(path) (\(reason)): check that its folder exists and is writable")
        }
        return descriptor
    }

    /// The hidden name a socket for `path` is made under (".NAME.PID" beside it), or nil when a socket
    /// address cannot hold it (it is then made at `path` itself).
    static func hiddenName(for path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let hidden = "\(folder).\(name).\(getpid())"
        return hidden.utf8.count <= maximumPathBytes ? hidden : nil
    }
}
