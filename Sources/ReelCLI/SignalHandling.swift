import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a graceful stop: the first one calls `stop` (the file is finalized);
/// a second SIGINT calls `abort`.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

    init(stop: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void) {
        // A parent may have started us with these signals blocked (the mask is inherited); unblock them so
        // a stop request always arrives.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let queue = DispatchQueue(label: "reel.signals")
        let count = SignalCounter()
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

/// Counts signals on the signal queue (serial), so no lock is needed beyond the queue itself.
private final class SignalCounter: @unchecked Sendable {
    private var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}
