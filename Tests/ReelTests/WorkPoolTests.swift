import Dispatch
import SystemSupport
import Testing

/// WorkPool: every job accepted runs once, on at most `threads` threads; a flood beyond the queue is refused.
@Suite struct WorkPoolTests {
    @Test func acceptedJobsAllRunOnAtMostItsThreads() {
        let pool = WorkPool(name: "reel.test.pool", threads: 2, queueLimit: 100)
        let counts = Locked<(done: Int, running: Int, most: Int)>((0, 0, 0))
        for _ in 0..<50 {
            #expect(pool.submit {
                counts.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                counts.withLock { $0.running -= 1; $0.done += 1 }
            })
        }
        pool.close()
        let final = counts.withLock { $0 }
        #expect(final.done == 50 && final.most <= 2, "\(final)")
        #expect(!pool.submit {}, "a closed pool takes nothing")
    }

    @Test func aFloodBeyondTheQueueIsRefused() {
        let pool = WorkPool(name: "reel.test.pool", threads: 2, queueLimit: 3)
        let gate = DispatchSemaphore(value: 0)
        let ran = Locked(0)
        // Two jobs hold both threads, three wait: the sixth is refused until one is done.
        let accepted = (0..<6).map { _ in pool.submit { gate.wait(); ran.withLock { $0 += 1 } } }
        #expect(accepted == [true, true, true, true, true, false])
        for _ in 0..<5 { gate.signal() }
        pool.close()
        #expect(ran.withLock { $0 } == 5)
    }
}
