import Foundation

/// A dedicated OS thread for a blocking loop (device reads, encoding), kept off Swift's cooperative pool,
/// and joinable.
final class WorkerThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Waits for the loop to return.
    func join() { finished.wait() }

    /// Waits at most `seconds`; false if the loop is still running.
    func join(timeout seconds: Double) -> Bool { finished.wait(timeout: .now() + seconds) == .success }
}
