import Glibc

/// A system call that failed: which one (for the error line) and its errno, to branch on.
package struct SystemError: Error, Equatable, CustomStringConvertible {
    package let call: String
    package let code: Int32

    package init(_ call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    package var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// The one place a system call is retried after a signal interrupted it.
package enum SystemCall {
    /// Calls `body` (a system call returning -1 and setting errno on failure) again while it fails with EINTR;
    /// returns its result, or throws the other failure's errno.
    package static func retrying<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw SystemError(call, code: code) }
        }
    }
}
