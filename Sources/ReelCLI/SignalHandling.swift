import CStopSignals
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import SystemSupport

/// Turns SIGINT and SIGTERM into a graceful stop: the first one calls the command's `stop` (the file is
/// finalized); a second SIGINT calls `abort`. Installed before a command parses its arguments (`install()`),
/// so a signal that comes while the command is still starting is counted instead of killing the process;
/// the command attaches its actions once it has something to stop, then checks `stopRequested`. SIGUSR1
/// calls the command's `togglePause`, if it has one (`reel record`), and is otherwise ignored.
///
/// The handler is a C one (CStopSignals) that writes the signal's number to a pipe; a dispatch source reads
/// the pipe. Installed on the main thread before any other thread exists, it catches a signal whichever
/// thread the kernel delivers it to, and the pipe keeps it until it is read: none is lost. (libdispatch's
/// own signal sources register later, on its manager thread; a signal that came before that was lost.)
/// The pipe's read end belongs to the dispatch source, which lives as long as the process (`shared`).
/// (`@unchecked`: the dispatch source is created in init and only kept alive after that.)
final class SignalHandling: @unchecked Sendable {
    private let source: (any DispatchSourceRead)?
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
        // Installed as the program was loaded when it runs a command that stops on signals (see signals.c).
        let numbers: [Int32] = [SIGINT, SIGTERM, SIGUSR1]
        let early = reel_stop_signals_early()
        let pipe = early >= 0 ? early : reel_stop_signals_install(numbers, Int32(numbers.count))
        guard pipe >= 0 else {
            // Only when the process is out of file descriptors at start-up: signals keep their default action.
            Terminal.printError("cannot catch stop signals: \(String(cString: strerror(-pipe))); Ctrl-C will end reel without finalizing")
            source = nil
            return
        }
        let count = self.count
        let actions = self.actions
        let source = DispatchSource.makeReadSource(fileDescriptor: pipe, queue: DispatchQueue(label: "reel.signals"))
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 64)
            while true {
                let got = read(pipe, &bytes, bytes.count)
                guard got > 0 else { return }  // EAGAIN: every signal so far is handled
                for number in bytes[0..<got].map(Int32.init) {
                    SignalHandling.handle(number, count: count, actions: actions)
                }
            }
        }
        source.resume()
        self.source = source
    }

    private static func handle(_ number: Int32, count: SignalCounter, actions: SignalActions) {
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
}

private struct Actions: Sendable {
    var stop: @Sendable () -> Void
    var abort: @Sendable () -> Void
    var togglePause: (@Sendable () -> Void)?
}

/// The command's actions, set on the main thread, read on the signal queue.
private final class SignalActions: Sendable {
    private let actions = Locked<Actions?>(nil)
    func set(_ value: Actions) { actions.withLock { $0 = value } }
    var current: Actions? { actions.withLock { $0 } }
}

/// Counts stop signals; incremented on the signal queue, read from the main thread.
private final class SignalCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}
