import FoundationEssentials
import Glibc
import Reel
import SystemSupport

/// `reel serve --live-folder DIR`: the HLS stream another Reel writes to DIR (`reel record --live DIR
/// --low-latency`), served at /live/ with what a plain web server cannot do: blocking playlist reloads
/// (`_HLS_msn`, `_HLS_part`) held until the playlist lists what was asked for, and requests for the part the
/// preload hint names held until it is written, each at most three target durations (then 503).
///
/// The folder is watched with inotify (the writer renames each file into place) on one thread, which also
/// answers the held requests: a held request is a PendingResponse in `waiting` (its connection parked by the
/// server), answered by the thread when the folder changes so that it can be, or when its time is up. No
/// thread waits per request; the server's connection limits bound how many are held.
final class LiveOrigin: Sendable {
    let folder: String

    /// When a held request is looked at: `answer` may wait longer only `.meanwhile`.
    private enum Moment {
        case meanwhile, timeUp, stopped
    }

    /// A held request: answered when `answer` gives a response (it must at its deadline and at the origin's stop).
    private struct Waiting {
        let pending: PendingResponse
        let deadline: Int64
        let answer: @Sendable (_ playlist: String?, _ position: BlockingReload.Position?, _ moment: Moment) -> HTTPResponse?
    }

    private struct State {
        var playlist: String?
        var position: BlockingReload.Position?
        var waiting: [Waiting] = []
        var stopped = false
    }
    private let state = Locked(State())
    private let notifications: FileDescriptor
    /// A pipe written to wake the watching thread: a request was held (its deadline may be the nearest), or stop.
    private let wakeup: (read: FileDescriptor, write: FileDescriptor)
    private let thread = Locked<WorkerThread?>(nil)
    /// Called when the stream becomes playable (its playlist lists three target durations, see
    /// `Position.isPlayable`) or stops being so (cleared for a new stream).
    private let playableChanged: @Sendable (Bool) -> Void

    /// A request waits at most this long before the playlist has a target duration to bound it.
    static let longestWaitWithoutPlaylist = 6.0

    /// Throws `ReelError.invalidInput` when the folder is not there.
    init(folder: String, playableChanged: @escaping @Sendable (Bool) -> Void = { _ in }) throws {
        self.playableChanged = playableChanged
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ReelError.invalidInput("--live-folder \(ErrorText.path(folder)) is not a folder: give the folder `reel record --live DIR` writes (create it first)")
        }
        self.folder = folder
        let raw = inotify_init1(Int32(IN_CLOEXEC))
        guard raw >= 0 else { throw ReelError.runtime("cannot watch \(folder): inotify_init1: \(String(cString: strerror(errno)))") }
        notifications = FileDescriptor(raw)
        let watch = inotify_add_watch(raw, folder, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF))
        guard watch >= 0 else { throw ReelError.runtime("cannot watch \(folder): inotify_add_watch: \(String(cString: strerror(errno)))") }
        do {
            wakeup = try FileDescriptor.pipe(flags: O_NONBLOCK)
        } catch {
            throw ReelError.runtime("cannot watch \(folder): \(error)")
        }
        reload()
    }

    func start() {
        thread.withLock { $0 = WorkerThread(name: "reel.serve.live") { [self] in run() } }
    }

    /// Answers every held request at once and ends the watching thread.
    func stop() {
        let running = thread.withLock { current -> WorkerThread? in
            defer { current = nil }
            return current
        }
        state.withLock { $0.stopped = true }
        if let running {
            wakeWatcher()
            running.join()
        }
        answerWaiting()
    }

    /// Waits for the folder's changes and the held requests' deadlines, answering what can be answered after each.
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !state.withLock({ $0.stopped }) {
            let earliest = state.withLock { $0.waiting.map(\.deadline).min() }
            let timeout = earliest.map { Int32(clamping: max(0, ($0 - MonotonicClock.nanoseconds() + 999_999) / 1_000_000)) } ?? -1
            var entries = [pollfd(fd: notifications.raw, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeup.read.raw, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&entries, 2, timeout)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return }
            if entries[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = read(wakeup.read.raw, &drained, drained.count)
            }
            if entries[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(notifications.raw, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                reload()
            }
            answerWaiting()
        }
    }

    /// Reads the playlist again (after the folder changed).
    private func reload() {
        let text = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + LiveStream.playlistName))).map { String(decoding: $0, as: UTF8.self) }
        let changed = state.withLock { state -> Bool? in
            let was = state.position?.isPlayable == true
            if let text, let position = BlockingReload.Position(playlist: text) {
                state.playlist = text
                state.position = position
            } else if text == nil {
                state.playlist = nil  // cleared for a new stream
                state.position = nil
            }
            let now = state.position?.isPlayable == true
            return was != now ? now : nil
        }
        if let changed { playableChanged(changed) }
    }

    /// Answers the held requests that can be answered now, or whose time is up (every one once stopped).
    private func answerWaiting() {
        let answered = state.withLock { state -> [(PendingResponse, HTTPResponse)] in
            let now = MonotonicClock.nanoseconds()
            var answered: [(PendingResponse, HTTPResponse)] = []
            state.waiting.removeAll { waiting in
                let moment: Moment = state.stopped ? .stopped : now >= waiting.deadline ? .timeUp : .meanwhile
                guard let response = waiting.answer(state.playlist, state.position, moment) else { return false }
                answered.append((waiting.pending, response))
                return true
            }
            return answered
        }
        for (pending, response) in answered { pending.answer(response) }
    }

    /// Holds a request until `answer` gives a response (answered at once when it already does).
    private func hold(seconds: Double,
                      _ answer: @escaping @Sendable (String?, BlockingReload.Position?, Moment) -> HTTPResponse?) -> HTTPAnswer {
        let pending = PendingResponse()
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1_000_000_000)
        let now = state.withLock { state -> HTTPResponse? in
            if let response = answer(state.playlist, state.position, state.stopped ? .stopped : .meanwhile) { return response }
            state.waiting.append(Waiting(pending: pending, deadline: deadline, answer: answer))
            return nil
        }
        if let now { return .now(now) }
        // The watching thread's poll was set for the deadlines known before: wake it to see this one.
        wakeWatcher()
        return .later(pending)
    }

    private func wakeWatcher() {
        var one: UInt8 = 1
        _ = write(wakeup.write.raw, &one, 1)  // a full pipe already wakes it
    }

    /// The answer for `/live/NAME`.
    func respond(to name: String, query: (String) -> String?) -> HTTPAnswer {
        if name == LiveStream.playlistName { return playlist(query: query) }
        guard LiveFolder.isStreamFile(name), !name.hasPrefix(".") else {
            return .now(.error(404, "no live stream file named '\(name)'"))
        }
        let path = folder + "/" + name
        if let file = LiveOrigin.open(path) { return .now(file) }
        // The part the preload hint names (or the next one): held until it is written.
        let position = state.withLock { $0.position }
        let timeUp = "live part '\(name)' was not written within \(LiveOrigin.waitText(position))"
        return hold(seconds: LiveOrigin.longestWait(position)) { _, position, moment in
            if let file = LiveOrigin.open(path) { return file }
            guard moment != .stopped, let position, position.isComing(part: name) else {
                return .error(404, "no live stream file named '\(name)'")
            }
            return moment == .timeUp ? .error(503, timeUp) : nil
        }
    }

    private func playlist(query: (String) -> String?) -> HTTPAnswer {
        let request: BlockingReload.Request?
        do {
            request = try BlockingReload.Request.parse(msn: query("_HLS_msn"), part: query("_HLS_part"))
        } catch {
            return .now(.error(400, error.message))
        }
        let now = state.withLock { ($0.playlist, $0.position) }
        guard let text = now.0, let position = now.1 else {
            return .now(.error(404, "no live playlist in \(folder) yet: start `reel record --live \(folder) --low-latency`"))
        }
        guard let request else { return .now(LiveOrigin.playlistResponse(text)) }
        if position.isTooFarAhead(request) {
            return .now(.error(400, "_HLS_msn \(request.segment) is more than two segments past the playlist's last (\(position.nextSegment - 1))"))
        }
        let timeUp = "the playlist did not reach segment \(request.segment)\(request.part.map { " part \($0)" } ?? "") within \(LiveOrigin.waitText(position))"
        return hold(seconds: LiveOrigin.longestWait(position)) { playlist, position, moment in
            // Once stopped, the playlist as it is (it will not change any more).
            if let playlist, let position, position.answers(request) || moment == .stopped { return LiveOrigin.playlistResponse(playlist) }
            return moment == .meanwhile ? nil : .error(503, timeUp)
        }
    }

    private static func longestWait(_ position: BlockingReload.Position?) -> Double {
        position?.longestWait ?? LiveOrigin.longestWaitWithoutPlaylist
    }

    private static func waitText(_ position: BlockingReload.Position?) -> String {
        "\(Int(longestWait(position))) s (three target durations)"
    }

    private static func playlistResponse(_ text: String) -> HTTPResponse {
        .text(BlockingReload.served(text), contentType: "application/vnd.apple.mpegurl")
    }

    /// A file of the stream, sent by the kernel; nil when it is not there (yet).
    private static func open(_ path: String) -> HTTPResponse? {
        let raw = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard raw >= 0 else { return nil }
        let descriptor = FileDescriptor(raw)
        var info = stat()
        guard fstat(raw, &info) == 0 else { return nil }
        let type = path.hasSuffix(".m4s") ? "video/iso.segment" : "video/mp4"
        return HTTPResponse(status: 200, headers: [("Content-Type", type)], body: .file(descriptor, offset: 0, length: Int64(info.st_size)))
    }
}
