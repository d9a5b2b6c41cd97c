import FFmpegCore
import Synchronization
import SystemSupport

/// Photos asked of a running session: each is taken from the next picture the session hands out, encoded
/// on the session's one photo thread (the session and the movies go on meanwhile; it starts with the first
/// photo and ends with the session, once it has encoded what was handed to it), while the picture's slot is
/// held so no movie loses it.
final class PhotoRequests: SessionOutput, Sendable {
    struct Pending: Sendable {
        let still: StillRequest
        let completion: @Sendable (Result<String, ReelError>) -> Void
    }

    /// A picture and the requests it serves, with the pool it is held in.
    private struct Batch: Sendable {
        let item: CapturedItem
        let requests: [Pending]
        let buffer: CaptureBuffer
    }
    private struct State {
        /// Requests waiting for the next picture.
        var requests: [Pending] = []
        /// Why requests are refused from now on (the session has ended).
        var closed: String?
        /// Pictures waiting for the photo thread, which starts with the first.
        var batches: [Batch] = []
        var thread: WorkerThread?
        /// The session has ended: the photo thread ends once it has encoded the batches it was handed.
        var ended = false
    }
    private let state = Locked(State())
    /// Whether requests wait (read for every picture: one atomic load, no lock).
    private let waiting = Atomic<Bool>(false)
    /// The picture rendition photos are taken at, and the turn that makes them upright.
    let rendition: Int
    let rotation: DisplayTurn

    init(rendition: Int, rotation: DisplayTurn) {
        self.rendition = rendition
        self.rotation = rotation
    }

    /// Whether a photo waits for the next picture (read by the session for every picture: one atomic load).
    var arePending: Bool { waiting.load(ordering: .acquiring) }

    func add(_ request: Pending) {
        let refusal: String? = state.withLock { state in
            if let closed = state.closed { return closed }
            state.requests.append(request)
            waiting.store(true, ordering: .releasing)
            return nil
        }
        if let refusal { request.completion(.failure(.runtime(refusal))) }
    }

    var role: SessionOutputRole { .companion }
    func start() {}
    func wants(_ type: MediaType) -> Bool { type == .video }
    var isDone: Bool { false }
    var isWaiting: Bool { arePending }
    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) { serve(item, buffer: buffer) }
    func end(_ ending: SessionEngine.Ending) {
        cancelAll(ending.message ?? "the session ended (\(ending.reason.rawValue)) before the next picture")
        // The photo thread finishes what it was handed, then ends.
        state.withLockNotifying { $0.ended = true }
    }

    /// Hands the picture to every waiting request.
    func serve(_ item: CapturedItem, buffer: CaptureBuffer) {
        guard arePending else { return }
        // Held before it is queued: the photo thread releases it once encoded.
        buffer.hold(item)
        let served = state.withLockNotifying { state -> Bool in
            defer { state.requests.removeAll() }
            waiting.store(false, ordering: .releasing)
            guard !state.requests.isEmpty else { return false }
            state.batches.append(Batch(item: item, requests: state.requests, buffer: buffer))
            if state.thread == nil { state.thread = WorkerThread(name: "reel.output.photo") { [self] in encodeBatches() } }
            return true
        }
        if !served { buffer.release(.video, item.slot) }
    }

    /// The photo thread: encodes each batch in turn, until the session's end finds none left.
    private func encodeBatches() {
        while true {
            let next = state.wait { state -> Batch?? in
                if !state.batches.isEmpty { return .some(state.batches.removeFirst()) }
                return state.ended ? .some(nil) : nil
            }
            guard let batch = next else { return }
            defer { batch.buffer.release(.video, batch.item.slot) }
            for request in batch.requests {
                do {
                    try StillImageWriter.write(batch.item.picture(rendition), rotation: rotation, to: request.still)
                    request.completion(.success(request.still.path))
                } catch let error as ReelError {
                    request.completion(.failure(error))
                } catch {
                    request.completion(.failure(.runtime("\(request.still.path): \(error)")))
                }
            }
        }
    }

    /// The session ended: waiting requests fail with `message`, and later ones at once.
    func cancelAll(_ message: String) {
        let requests = state.withLock { state in
            defer { state.requests.removeAll() }
            state.closed = message
            waiting.store(false, ordering: .releasing)
            return state.requests
        }
        for request in requests { request.completion(.failure(.runtime(message))) }
    }
}
