import FoundationEssentials
import Glibc
import Reel
import SystemSupport

/// `reel serve --live-folder DIR`: the HLS stream another Reel writes to DIR (`reel record --live DIR
/// --low-latency`), served at /live/ with what a plain web server cannot do: blocking playlist reloads
/// (`_HLS_msn`, `_HLS_part`) held until the playlist lists what was asked for, and requests for the part the
/// preload hint names held until it is written, each at most three target durations (then 503).
///
/// The folder is watched with inotify (the writer renames each file into place), on one thread; a waiting
/// request waits on the origin's condition on its connection's thread (libmicrohttpd's), so a held request
/// costs no thread of its own, and the server's connection limits bound how many wait.
final class LiveOrigin: Sendable {
    let folder: String
    private struct State {
        var playlist: String?
        var position: BlockingReload.Position?
        /// Counts the folder's changes: a waiting request for a part looks again after each.
        var changes = 0
        var stopped = false
    }
    private let state = Locked(State())
    private let notifications: FileDescriptor
    private let watch: Int32
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
        watch = inotify_add_watch(raw, folder, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF))
        guard watch >= 0 else { throw ReelError.runtime("cannot watch \(folder): inotify_add_watch: \(String(cString: strerror(errno)))") }
        reload()
    }

    func start() {
        thread.withLock { $0 = WorkerThread(name: "reel.serve.live") { [self] in run() } }
    }

    /// Wakes every waiting request (they answer at once) and ends the watching thread.
    func stop() {
        let running = thread.withLock { current -> WorkerThread? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        state.withLockNotifying { $0.stopped = true }
        inotify_rm_watch(notifications.raw, watch)  // its IN_IGNORED wakes the thread's read
        running.join()
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !state.withLock({ $0.stopped }) {
            let count = buffer.withUnsafeMutableBytes { read(notifications.raw, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            reload()
        }
    }

    /// Reads the playlist again (after the folder changed) and wakes the waiting requests.
    private func reload() {
        let text = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + LiveStream.playlistName))).map { String(decoding: $0, as: UTF8.self) }
        let changed = state.withLockNotifying { state -> Bool? in
            state.changes += 1
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

    /// The response for `/live/NAME`.
    func respond(to name: String, query: (String) -> String?) -> HTTPResponse {
        if name == LiveStream.playlistName { return playlist(query: query) }
        guard LiveFolder.isStreamFile(name), !name.hasPrefix(".") else {
            return .error(404, "no live stream file named '\(name)'")
        }
        if let file = LiveOrigin.open(folder + "/" + name) { return file }
        // The part the preload hint names (or the next one): held until it is written.
        let deadline = deadline(for: state.withLock { $0.position })
        let found = state.wait(until: { state -> HTTPResponse?? in
            if state.stopped { return .some(nil) }
            guard let position = state.position, position.isComing(part: name) else { return .some(nil) }
            return LiveOrigin.open(folder + "/" + name).map { .some($0) }
        }, deadline: deadline)
        if let response = found ?? nil { return response }
        if found == nil { return .error(503, "live part '\(name)' was not written within \(waitText(state.withLock { $0.position }))") }
        return LiveOrigin.open(folder + "/" + name) ?? .error(404, "no live stream file named '\(name)'")
    }

    private func playlist(query: (String) -> String?) -> HTTPResponse {
        let request: BlockingReload.Request?
        do {
            request = try BlockingReload.Request.parse(msn: query("_HLS_msn"), part: query("_HLS_part"))
        } catch {
            return .error(400, error.message)
        }
        let now = state.withLock { ($0.playlist, $0.position) }
        guard let text = now.0, let position = now.1 else {
            return .error(404, "no live playlist in \(folder) yet: start `reel record --live \(folder) --low-latency`")
        }
        guard let request else { return LiveOrigin.playlistResponse(text) }
        if position.isTooFarAhead(request) {
            return .error(400, "_HLS_msn \(request.segment) is more than two segments past the playlist's last (\(position.nextSegment - 1))")
        }
        let answered = state.wait(until: { state -> String? in
            guard let position = state.position, let text = state.playlist else { return nil }
            return state.stopped || position.answers(request) ? text : nil
        }, deadline: deadline(for: position))
        guard let answered else {
            return .error(503, "the playlist did not reach segment \(request.segment)\(request.part.map { " part \($0)" } ?? "") within \(waitText(position))")
        }
        return LiveOrigin.playlistResponse(answered)
    }

    private func deadline(for position: BlockingReload.Position?) -> Int64 {
        let seconds = position?.longestWait ?? LiveOrigin.longestWaitWithoutPlaylist
        return MonotonicClock.nanoseconds() + Int64(seconds * 1_000_000_000)
    }

    private func waitText(_ position: BlockingReload.Position?) -> String {
        "\(Int(position?.longestWait ?? LiveOrigin.longestWaitWithoutPlaylist)) s (three target durations)"
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
