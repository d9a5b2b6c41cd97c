import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a graceful stop: the first one calls `stop` (the file is finalized);
/// a second SIGINT calls `abort`.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]
    private let count = SignalCounter()

    /// Whether a stop signal has arrived. A signal that comes before the work has started finds nothing to
    /// stop, so callers check this once the work is running.
    var stopRequested: Bool { count.value > 0 }

    init(stop: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void) {
        // A parent may have started us with these signals blocked (the mask is inherited); unblock them so
        // a stop request always arrives.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let queue = DispatchQueue(label: "reel.signals")
        let count = self.count
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if count.increment() == 1 { stop() } else if number == SIGINT { abort() }
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// Counts stop signals; incremented on the signal queue, read from the main thread.
private final class SignalCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}
