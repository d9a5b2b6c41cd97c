import SystemSupport

/// A few threads for blocking work that must not hold up its caller (a control command that waits for the
/// next picture), with a bounded queue: no thread per request, and a flood of requests is refused at once
/// rather than queued without end. Threads start as work arrives, up to `threads`, and end with `close()`.
final class WorkPool: @unchecked Sendable {
    let name: String
    let threadLimit: Int
    let queueLimit: Int
    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []
    private var threads: [WorkerThread] = []
    private var idle = 0
    private var running = 0
    private var closed = false

    init(name: String, threads: Int, queueLimit: Int) {
        self.name = name
        self.threadLimit = max(1, threads)
        self.queueLimit = max(0, queueLimit)
    }

    /// Queues `job`; false (and `job` is not run) when every thread is busy and `queueLimit` jobs already
    /// wait, or the pool is closed.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard !closed, running + jobs.count < threadLimit + queueLimit else { return false }
            jobs.append(job)
            if idle == 0 && threads.count < threadLimit {
                threads.append(WorkerThread(name: name) { [self] in work() })
            } else {
                condition.signal()
            }
            return true
        }
    }

    /// Runs what is queued, then ends the threads and waits for them.
    func close() {
        let running = condition.withLock {
            closed = true
            condition.broadcast()
            return threads
        }
        for thread in running { thread.join() }
    }

    private func work() {
        condition.lock()
        while true {
            if let job = jobs.first {
                jobs.removeFirst()
                running += 1
                condition.unlock()
                job()
                condition.lock()
                running -= 1
            } else if closed {
                condition.unlock()
                return
            } else {
                idle += 1
                condition.wait()
                idle -= 1
            }
        }
    }
}
