/// A value guarded by a lock, for state shared between Reel's threads. Built on a pthread mutex (Condition)
/// rather than Synchronization.Mutex, whose futex-based lock Thread Sanitizer cannot see (it reported
/// false races on Mutex-guarded state under `swift test --sanitize=thread`).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = Condition()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
