import CSystemSupport
import Dispatch
import Glibc

/// A dedicated OS thread for a blocking loop (device reads, encoding), kept off Swift's cooperative pool,
/// and joinable. A pthread of its own (Foundation's Thread is not linked into `reel`).
package final class WorkerThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        let finished: DispatchSemaphore
        init(name: String, body: @escaping @Sendable () -> Void, finished: DispatchSemaphore) {
            self.name = name
            self.body = body
            self.finished = finished
        }
    }

    package init(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body, finished: finished)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { argument in
            let finished: DispatchSemaphore
            do {
                let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
                finished = start.finished
                reel_name_current_thread(start.name)
                start.body()
            }
            // The body, and what it captured, are released before a joiner wakes: an object whose last
            // reference the body held (a movie and its encoder) is gone when join returns, not torn down
            // on this thread while the process that joined it exits.
            finished.signal()
            return nil
        }, start)
        pthread_attr_destroy(&attributes)
        // Only resource exhaustion makes this fail; there is no way to go on without the thread.
        precondition(result == 0, "pthread_create failed: \(String(cString: strerror(result)))")
    }

    /// Waits for the loop to return. Any number of threads may join, any number of times.
    package func join() {
        finished.wait()
        finished.signal()  // passed on to the next joiner
    }

    /// Waits at most `seconds`; false if the loop is still running.
    package func join(timeout seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()
        return true
    }
}
