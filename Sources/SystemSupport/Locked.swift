/// A value guarded by a lock, for state shared between Reel's threads. Built on a pthread mutex (Condition)
/// rather than Synchronization.Mutex, whose futex-based lock Thread Sanitizer cannot see (it reported
/// false races on Mutex-guarded state under `swift test --sanitize=thread`).
package final class Locked<Value>: @unchecked Sendable {
    fileprivate let lock = Condition()
    fileprivate var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}

extension Locked {
    /// Waits, the lock released meanwhile, until `ready` gives a result; `withLockNotifying` wakes it.
    package func wait<Result>(until ready: (inout Value) -> Result?) -> Result {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let result = ready(&value) { return result }
            lock.wait()
        }
    }

    /// As `wait(until:)`, but gives up at `deadline` (monotonic nanoseconds, MonotonicClock): nil then.
    package func wait<Result>(until ready: (inout Value) -> Result?, deadline: Int64) -> Result? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let result = ready(&value) { return result }
            if !lock.wait(untilNanoseconds: deadline), MonotonicClock.nanoseconds() >= deadline { return ready(&value) }
        }
    }

    /// Changes the value as `withLock` does, then wakes every thread waiting in `wait(until:)`.
    package func withLockNotifying<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        return try body(&value)
    }
}
