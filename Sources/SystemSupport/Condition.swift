import Glibc

/// A pthread mutex and condition variable: what NSCondition is, without linking Foundation (the `reel`
/// binary uses FoundationEssentials only, which keeps ~10 MB of Foundation, CoreFoundation and ICU out of
/// every process). Timed waits use the monotonic clock, so a wall-clock change cannot stretch them. Thread
/// Sanitizer understands pthread primitives.
package final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (with the lock held) until signalled.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (with the lock held) until signalled or `deadline` (MonotonicClock nanoseconds) passes;
    /// false when the deadline passed.
    package func wait(untilNanoseconds deadline: Int64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }
}
