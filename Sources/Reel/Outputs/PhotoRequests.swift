import Dispatch
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

    private let pending = Locked<(requests: [Pending], closed: String?)>(([], nil))
    private let waiting = Atomic<Bool>(false)

    /// A picture and the requests it serves, with the pool it is held in.
    private struct Batch: Sendable {
        let item: CapturedItem
        let requests: [Pending]
        let buffer: CaptureBuffer
    }
    /// Pictures waiting for the photo thread (one signal of `ready` each, and one more at the end).
    private let work = Locked<(batches: [Batch], thread: WorkerThread?)>(([], nil))
    private let ready = DispatchSemaphore(value: 0)
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
        let refusal: String? = pending.withLock { state in
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
        if work.withLock({ $0.thread != nil }) { ready.signal() }
    }

    /// Hands the picture to every waiting request.
    func serve(_ item: CapturedItem, buffer: CaptureBuffer) {
        guard arePending else { return }
        let requests = pending.withLock { state in
            defer { state.requests.removeAll() }
            waiting.store(false, ordering: .releasing)
            return state.requests
        }
        guard !requests.isEmpty else { return }
        buffer.hold(item)
        work.withLock { state in
            state.batches.append(Batch(item: item, requests: requests, buffer: buffer))
            if state.thread == nil { state.thread = WorkerThread(name: "reel.output.photo") { [self] in encodeBatches() } }
        }
        ready.signal()
    }

    /// The photo thread: encodes each batch in turn; a signal with nothing queued is the session's end.
    private func encodeBatches() {
        while true {
            ready.wait()
            guard let batch = work.withLock({ $0.batches.isEmpty ? nil : $0.batches.removeFirst() }) else { return }
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
        let requests = pending.withLock { state in
            defer { state.requests.removeAll() }
            state.closed = message
            waiting.store(false, ordering: .releasing)
            return state.requests
        }
        for request in requests { request.completion(.failure(.runtime(message))) }
    }
}
