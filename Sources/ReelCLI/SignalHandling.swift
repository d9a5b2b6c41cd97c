import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into a graceful stop: the first one calls the command's `stop` (the file is
/// finalized); a second SIGINT calls `abort`. Installed before a command parses its arguments (`install()`),
/// so a signal that comes while the command is still starting is counted instead of killing the process;
/// the command attaches its actions once it has something to stop, then checks `stopRequested`. SIGUSR1
/// calls the command's `togglePause`, if it has one (`reel record`), and is otherwise ignored.
/// (`@unchecked`: the dispatch sources are created in init and only kept alive after that.)
final class SignalHandling: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let count = SignalCounter()
    private let actions = SignalActions()

    /// The process's handler, installed on first use.
    static let shared = SignalHandling()

    /// Installs the handler now (at the start of a command that stops on signals).
    static func install() { _ = shared }

    /// Whether a stop signal has arrived. A signal that comes before the work has started finds nothing to
    /// stop, so callers check this once the work is running.
    var stopRequested: Bool { count.value > 0 }

    /// What the next signals do.
    func attach(stop: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void,
                togglePause: (@Sendable () -> Void)? = nil) {
        actions.set(Actions(stop: stop, abort: abort, togglePause: togglePause))
    }

    private init() {
        // A parent may have started us with these signals blocked (the mask is inherited); unblock them so
        // a stop request always arrives.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        sigaddset(&unblock, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let queue = DispatchQueue(label: "reel.signals")
        let count = self.count
        let actions = self.actions
        sources = [SIGINT, SIGTERM, SIGUSR1].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGUSR1 {
                    actions.current?.togglePause?()
                    return
                }
                let current = actions.current
                if count.increment() == 1 {
                    current?.stop()
                } else if number == SIGINT {
                    // Twice Ctrl-C before the command had anything to stop: leave at once.
                    if let current { current.abort() } else { _exit(ExitCode.interrupted.rawValue) }
                }
            }
            source.resume()
            return source
        }
    }
}

private struct Actions: Sendable {
    var stop: @Sendable () -> Void
    var abort: @Sendable () -> Void
    var togglePause: (@Sendable () -> Void)?
}

/// The command's actions, set on the main thread, read on the signal queue.
private final class SignalActions: Sendable {
    private let actions = Mutex<Actions?>(nil)
    func set(_ value: Actions) { actions.withLock { $0 = value } }
    var current: Actions? { actions.withLock { $0 } }
}

/// Counts stop signals; incremented on the signal queue, read from the main thread.
private final class SignalCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}
