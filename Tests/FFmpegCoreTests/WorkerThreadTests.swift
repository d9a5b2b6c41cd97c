import Glibc
import SystemSupport
import Testing

/// A joined worker thread has let go of what its body held: a movie's recorder (and its x264 encoder, with
/// x264's own threads) whose last reference was the thread's body is torn down before `join` returns, so a
/// process that exits after joining does not exit in the middle of that teardown (CI's valgrind run once
/// found x264 memory lost that way).
@Suite struct WorkerThreadTests {
    final class SlowToTearDown: Sendable {
        let tornDown: Locked<Bool>
        init(_ tornDown: Locked<Bool>) { self.tornDown = tornDown }
        deinit {
            usleep(100_000)  // an encoder closing: long enough that a joiner that does not wait sees it unfinished
            tornDown.withLock { $0 = true }
        }
    }

    @Test func whatTheBodyHeldIsReleasedBeforeJoinReturns() {
        let tornDown = Locked(false)
        var held: SlowToTearDown? = SlowToTearDown(tornDown)
        let thread = WorkerThread(name: "reel.test.teardown") { [held] in _ = held }
        held = nil
        thread.join()
        #expect(tornDown.withLock { $0 }, "the body's captures were still being released after join returned")
    }

    @Test func aTimedJoinWaitsForTheReleaseToo() {
        let tornDown = Locked(false)
        var held: SlowToTearDown? = SlowToTearDown(tornDown)
        let thread = WorkerThread(name: "reel.test.teardown") { [held] in _ = held }
        held = nil
        #expect(thread.join(timeout: 10))
        #expect(tornDown.withLock { $0 })
    }
}
