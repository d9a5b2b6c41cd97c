import Dispatch

/// A few threads for blocking work that must not hold up its caller (a control command that waits for the
/// next picture), with a bounded queue: no thread per request, and a flood of requests is refused at once
/// rather than queued without end. Threads start as work arrives, up to `threads`, and end with `close()`.
package final class WorkPool: Sendable {
    package let name: String
    package let threadLimit: Int
    package let queueLimit: Int
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var threads: [WorkerThread] = []
        /// Jobs taken by a thread and not yet done.
        var running = 0
        var closed = false
    }
    private let state = Locked(State())
    /// One signal per job queued, and one per thread at the end.
    private let work = DispatchSemaphore(value: 0)

    package init(name: String, threads: Int, queueLimit: Int) {
        self.name = name
        self.threadLimit = max(1, threads)
        self.queueLimit = max(0, queueLimit)
    }

    /// Queues `job`; false (and `job` is not run) when every thread is busy and `queueLimit` jobs already
    /// wait, or the pool is closed.
    package func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed, state.running + state.jobs.count < threadLimit + queueLimit else { return false }
            state.jobs.append(job)
            if state.threads.count < min(threadLimit, state.running + state.jobs.count) {
                state.threads.append(WorkerThread(name: name) { [self] in serve() })
            }
            return true
        }
        if accepted { work.signal() }
        return accepted
    }

    /// Runs what is queued, then ends the threads and waits for them.
    package func close() {
        let threads = state.withLock { state in
            state.closed = true
            return state.threads
        }
        for _ in threads { work.signal() }
        for thread in threads { thread.join() }
    }

    private func serve() {
        while true {
            work.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.jobs.isEmpty else { return nil }
                state.running += 1
                return state.jobs.removeFirst()
            }
            // No job for this signal: the pool is closed and what was queued is done.
            guard let job else { return }
            job()
            state.withLock { $0.running -= 1 }
        }
    }
}
