import Reel
import CSystemSupport
import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// The control socket of a running recording (`reel record --control PATH`): a Unix socket (mode 0600,
/// removed at the end) that takes JSON-line requests (see ControlMessages) from several clients at once and
/// pushes events to those that `subscribe`: progress once a second, segment events, and the result at the
/// end. One thread polls every descriptor; commands that wait (a switch, a photo) run on threads of their
/// own, so a status request is answered while a switch opens its device.
///
/// Bounded: a request line longer than 64 KiB is answered with an error and skipped; a client that does
/// not read its replies and events is dropped once 1 MiB waits for it, so it can never hold up the
/// recording; at most 32 clients at once.
public final class ControlSocketServer: @unchecked Sendable {
    public static let maximumClients = 32
    public static let maximumPendingBytes = 1 << 20
    /// The control thread's nice level, when the process may raise it (root, CAP_SYS_NICE, RLIMIT_NICE).
    static let threadNiceLevel: Int32 = -11

    public let path: String
    private let controller: SessionController
    /// Closed by the server's thread at the end.
    private let listener: FileDescriptor
    /// A pipe that wakes the poll when replies or events were queued from other threads.
    private let wake: (read: FileDescriptor, write: FileDescriptor)
    private let state = Locked<State>(State())
    private var thread: WorkerThread?
    /// Commands that wait (a photo waits for the next picture) run here, off the server's thread: two at a
    /// time, eight more waiting; more than that is refused with a reply that says so.
    private let slowCommands = WorkPool(name: "reel.control.command", threads: 2, queueLimit: 8)

    /// Keyed by its descriptor's number; a reply checks it still goes to the same connection (a number is
    /// reused once a client has gone).
    private struct Client {
        let descriptor: FileDescriptor
        var incoming: [UInt8] = []
        /// Skipping the rest of a line that was too long.
        var skipping = false
        var outgoing: [UInt8] = []
        var subscribed = false
        /// Too much waited for it: the server thread closes it.
        var dropped = false
    }

    private struct State {
        var clients: [Int32: Client] = [:]
        var finishing = false
        var finishedSent = false
    }

    /// Listens at `path` (see UnixSocket.listen for what is refused); `start()` begins serving.
    public init(path: String, controller: SessionController) throws {
        self.path = path
        self.controller = controller
        listener = try UnixSocket.listen(at: path)
        do {
            wake = try FileDescriptor.pipe(flags: O_NONBLOCK)
        } catch {
            unlink(path)
            throw ReelError.runtime("\(error)")
        }
    }

    public func start() {
        thread = WorkerThread(name: "reel.control") { [self] in serve() }
    }

    /// Pushes a recording event to the subscribers (progress is pushed once a second by the server itself).
    public func publish(_ event: RecordingEvent) {
        switch event {
        case .started(let output): broadcast(ControlMessages.event("started", ["output": output]))
        case .segmentStarted(let output, let index):
            broadcast(ControlMessages.event("segmentStarted", SegmentStart(output: output, index: index)))
        case .segmentFinished(let segment): broadcast(ControlMessages.event("segmentFinished", segment))
        case .liveStopped(let live): broadcast(ControlMessages.event("liveStopped", live))
        case .liveConnection(let connection): broadcast(ControlMessages.event(connection.eventName, connection))
        case .finished(let result):
            // Published once, whoever comes first (the session's event or its owner once it has the result).
            guard state.withLock({ state in defer { state.finishedSent = true }; return !state.finishedSent }) else { return }
            broadcast(ControlMessages.event("finished", result))
        case .levels(let levels): broadcast(ControlMessages.event("levels", levels))
        case .alarmStarted(let alarm): broadcast(ControlMessages.event("alarmStarted", alarm))
        case .alarmEnded(let alarm): broadcast(ControlMessages.event("alarmEnded", alarm))
        case .triggerStarted(let trigger): broadcast(ControlMessages.event("triggerStarted", trigger))
        case .triggerEnded(let trigger): broadcast(ControlMessages.event("triggerEnded", trigger))
        case .triggeredMovie(let movie): broadcast(ControlMessages.event("triggeredMovie", movie))
        case .videoInput(let change): broadcast(ControlMessages.event(change.lost ? "videoInputLost" : "videoInputBack", change))
        case .progress: break
        }
    }

    private struct SegmentStart: Encodable {
        var output: String
        var index: Int
    }

    /// Sends what is queued (for at most a second), closes every connection, removes the socket and returns.
    /// Also when it was never started (the recording could not start).
    public func finish() {
        state.withLock { $0.finishing = true }
        wakeUp()
        if thread == nil {
            thread = WorkerThread(name: "reel.control") { [self] in serve() }
        }
        thread?.join()
        slowCommands.close()
    }

    // MARK: queueing (any thread)

    private func broadcast(_ line: String) {
        state.withLock { state in
            for key in state.clients.keys where state.clients[key]!.subscribed { Self.queue(line, to: &state.clients[key]!) }
        }
        wakeUp()
    }

    private func send(_ line: String, to descriptor: FileDescriptor) {
        state.withLock { state in
            guard state.clients[descriptor.raw]?.descriptor === descriptor else { return }
            Self.queue(line, to: &state.clients[descriptor.raw]!)
        }
        wakeUp()
    }

    private static func queue(_ line: String, to client: inout Client) {
        guard !client.dropped else { return }
        if client.outgoing.count + line.utf8.count > maximumPendingBytes {
            client.dropped = true
            client.outgoing.removeAll()
        } else {
            client.outgoing.append(contentsOf: line.utf8)
        }
    }

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.write.raw, &byte, 1)
    }

    // MARK: the server's thread

    private func serve() {
        // Answers must not wait behind the encoders' threads: the control thread mostly sleeps in poll, so
        // running it ahead of them (as the sound readers run, DeviceThreadPriority's level) costs them nothing.
        // Without the right to raise a priority it stays at the process's level.
        _ = reel_raise_current_thread_priority(ControlSocketServer.threadNiceLevel)
        var nextProgress = MonotonicClock.nanoseconds() + 1_000_000_000
        var finishDeadline: Int64? = nil
        while true {
            let (finishing, descriptors) = state.withLock { state in
                (state.finishing, state.clients.map { ($0.key, !$0.value.outgoing.isEmpty, $0.value.dropped) })
            }
            for (descriptor, _, dropped) in descriptors where dropped { disconnect(descriptor) }
            if finishing {
                finishDeadline = finishDeadline ?? MonotonicClock.nanoseconds() + 1_000_000_000
                let pending = descriptors.contains { $0.1 && !$0.2 }
                if !pending || MonotonicClock.nanoseconds() > finishDeadline! { break }
            }
            var polled = [pollfd(fd: wake.read.raw, events: Int16(POLLIN), revents: 0)]
            if !finishing { polled.append(pollfd(fd: listener.raw, events: Int16(POLLIN), revents: 0)) }
            for (descriptor, hasOutput, dropped) in descriptors where !dropped {
                polled.append(pollfd(fd: descriptor, events: Int16(POLLIN) | (hasOutput ? Int16(POLLOUT) : 0), revents: 0))
            }
            let timeout = max(0, Int32((nextProgress - MonotonicClock.nanoseconds()) / 1_000_000))
            let wait = finishing ? 50 : min(timeout, 1000)
            guard (try? SystemCall.retrying("poll", { poll(&polled, nfds_t(polled.count), wait) })) != nil else { break }
            for entry in polled where entry.revents != 0 {
                if entry.fd == wake.read.raw {
                    var scratch = [UInt8](repeating: 0, count: 256)
                    while read(wake.read.raw, &scratch, scratch.count) > 0 {}
                } else if entry.fd == listener.raw {
                    acceptClients()
                } else {
                    if entry.revents & Int16(POLLOUT) != 0 { flush(entry.fd) }
                    if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { receive(entry.fd) }
                }
            }
            if MonotonicClock.nanoseconds() >= nextProgress {
                nextProgress = MonotonicClock.nanoseconds() + 1_000_000_000
                if let progress = controller.session.status.progress { broadcast(ControlMessages.event("progress", progress)) }
            }
        }
        for descriptor in state.withLock({ Array($0.clients.keys) }) { disconnect(descriptor) }
        listener.close()
        unlink(path)
    }

    private func acceptClients() {
        while true {
            guard let descriptor = listener.acceptConnection(flags: O_NONBLOCK) else { return }
            let accepted = descriptor.raw
            let full = state.withLock { state -> Bool in
                guard state.clients.count < ControlSocketServer.maximumClients else { return true }
                state.clients[accepted] = Client(descriptor: descriptor)
                return false
            }
            if full {
                let line = ControlMessages.reply(requestID: nil, error: "too many clients (at most \(ControlSocketServer.maximumClients))", data: nil)
                _ = line.withCString { Glibc.send(accepted, $0, strlen($0), Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            }
        }
    }

    private func disconnect(_ descriptor: Int32) {
        state.withLock({ $0.clients.removeValue(forKey: descriptor) })?.descriptor.close()
    }

    private func flush(_ descriptor: Int32) {
        state.withLock { state in
            guard var client = state.clients[descriptor], !client.outgoing.isEmpty else { return }
            let sent = client.outgoing.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if sent > 0 {
                client.outgoing.removeFirst(sent)
            } else if sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
                client.dropped = true
            }
            state.clients[descriptor] = client
        }
    }

    private func receive(_ descriptor: Int32) {
        guard let connection = state.withLock({ $0.clients[descriptor]?.descriptor }) else { return }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count: Int
        do throws(SystemError) {
            count = try SystemCall.retrying("read") { read(descriptor, &chunk, chunk.count) }
        } catch {
            if error.code != EAGAIN { disconnect(descriptor) }
            return
        }
        guard count > 0 else {
            disconnect(descriptor)  // the client closed its end
            return
        }
        var lines: [[UInt8]] = []
        var tooLong = false
        state.withLock { state in
            guard var client = state.clients[descriptor] else { return }
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") {
                    if !client.skipping { lines.append(client.incoming) }
                    client.incoming.removeAll(keepingCapacity: true)
                    client.skipping = false
                } else if !client.skipping {
                    client.incoming.append(byte)
                    if client.incoming.count > ControlMessages.maximumRequestBytes {
                        client.incoming.removeAll()
                        client.skipping = true
                        tooLong = true
                    }
                }
            }
            state.clients[descriptor] = client
        }
        if tooLong {
            send(ControlMessages.reply(requestID: nil, error: "request longer than \(ControlMessages.maximumRequestBytes) bytes: skipped", data: nil), to: connection)
        }
        for line in lines where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { handle(line, from: connection) }
    }

    private func handle(_ line: [UInt8], from descriptor: FileDescriptor) {
        let request: ControlMessages.Request
        let command: ControlCommand
        do {
            request = try ControlMessages.request(line)
        } catch {
            return send(ControlMessages.reply(requestID: nil, error: Self.text(of: error), data: nil), to: descriptor)
        }
        do {
            command = try ControlCommand(parsing: request.command)
        } catch {
            return send(ControlMessages.reply(requestID: request.requestID, error: Self.text(of: error), data: nil), to: descriptor)
        }
        if command == .subscribe {
            state.withLock { state in
                if state.clients[descriptor.raw]?.descriptor === descriptor { state.clients[descriptor.raw]!.subscribed = true }
            }
        }
        let run: @Sendable () -> Void = { [self] in
            let reply: String
            do {
                reply = ControlMessages.reply(requestID: request.requestID, error: nil, data: try controller.execute(command))
            } catch {
                reply = ControlMessages.reply(requestID: request.requestID, error: Self.text(of: error), data: nil)
            }
            send(reply, to: descriptor)
        }
        if SessionController.isSlow(command) {
            guard slowCommands.submit(run) else {
                return send(ControlMessages.reply(requestID: request.requestID, error: "busy: \(slowCommands.threadLimit + slowCommands.queueLimit) commands that wait are already under way; send it again once they are answered", data: nil), to: descriptor)
            }
        } else {
            run()
        }
    }

    private static func text(of error: any Error) -> String {
        (error as? ReelError)?.message ?? "\(error)"
    }
}
