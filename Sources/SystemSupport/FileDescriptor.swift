import Glibc
import Synchronization

/// An open file descriptor that owns itself: it is closed exactly once, when its last reference goes (or
/// earlier by `close()`), so no path (an error thrown halfway, an early return) can leak it or close it twice.
/// Handing it to a C library that closes it (libmicrohttpd's file responses) is `release()`.
package final class FileDescriptor: Sendable {
    /// The descriptor number, for system calls; valid while this object lives and is not closed or released.
    package let raw: Int32
    private let open = Atomic<Bool>(true)

    /// Takes ownership of `raw` (≥ 0).
    package init(_ raw: Int32) {
        precondition(raw >= 0, "a file descriptor is never negative")
        self.raw = raw
    }

    /// Takes ownership of what `body` returns (an open(2)-like call); throws its errno when it returns -1.
    package static func opening(_ call: String, _ body: () -> Int32) throws(SystemError) -> FileDescriptor {
        FileDescriptor(try SystemCall.retrying(call, body))
    }

    /// A pipe: (read end, write end), both close-on-exec, with status `flags` (O_NONBLOCK) added.
    package static func pipe(flags: Int32 = 0) throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw SystemError("pipe", code: errno) }
        let pair = (read: FileDescriptor(ends[0]), write: FileDescriptor(ends[1]))
        pair.read.add(flags)
        pair.write.add(flags)
        return pair
    }

    /// The next connection waiting on this listening socket (close-on-exec, with `flags` added), or nil when
    /// none waits (or accept failed).
    package func acceptConnection(flags: Int32 = 0) -> FileDescriptor? {
        let accepted = Glibc.accept(raw, nil, nil)
        guard accepted >= 0 else { return nil }
        let connection = FileDescriptor(accepted)
        connection.add(flags)
        return connection
    }

    /// Sets close-on-exec (glibc's pipe2 and accept4 are not visible to Swift) and adds status `flags`.
    private func add(_ flags: Int32) {
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        if flags != 0 { _ = fcntl(raw, F_SETFL, fcntl(raw, F_GETFL) | flags) }
    }

    /// Closes now; nil, or the errno close(2) reported (a lost write-back shows here). Later calls do nothing.
    @discardableResult
    package func close() -> Int32? {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return nil }
        return Glibc.close(raw) == 0 ? nil : errno
    }

    /// Gives the descriptor up to a new owner that closes it; this object no longer does.
    package func release() -> Int32 {
        open.store(false, ordering: .releasing)
        return raw
    }

    deinit {
        if open.load(ordering: .acquiring) { Glibc.close(raw) }
    }
}
