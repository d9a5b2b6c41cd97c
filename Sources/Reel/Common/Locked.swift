import Foundation

/// A value guarded by a lock, for state shared between Reel's threads. Built on NSLock (a pthread mutex)
/// rather than Synchronization.Mutex, whose futex-based lock Thread Sanitizer cannot see (it reported
/// false races on Mutex-guarded state under `swift test --sanitize=thread`).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
