import FFmpegCore
import Synchronization

/// Photos asked of a running session: each is taken from the next picture the session hands out, encoded
/// on a thread of its own (the session and the movies go on meanwhile), while the picture's slot is held
/// so no movie loses it.
final class PhotoRequests: Sendable {
    struct Pending: Sendable {
        let still: StillRequest
        let completion: @Sendable (Result<String, ReelError>) -> Void
    }

    private let pending = Locked<(requests: [Pending], closed: String?)>(([], nil))
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
        let refusal: String? = pending.withLock { state in
            if let closed = state.closed { return closed }
            state.requests.append(request)
            waiting.store(true, ordering: .releasing)
            return nil
        }
        if let refusal { request.completion(.failure(.runtime(refusal))) }
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
        let rendition = rendition, rotation = rotation
        _ = WorkerThread(name: "reel.output.photo") {
            defer { buffer.release(.video, item.slot) }
            for request in requests {
                do {
                    try StillImageWriter.write(item.picture(rendition), rotation: rotation, to: request.still)
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
