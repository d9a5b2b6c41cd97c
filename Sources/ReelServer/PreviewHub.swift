import Reel
import SystemSupport

/// The live preview as MJPEG (`multipart/x-mixed-replace`): the session's PreviewOutput encodes small JPEGs
/// on its own thread; the hub frames each once and sends it to every viewer's stream, where it replaces a
/// picture not yet sent (a stream of limit 1), so a slow viewer skips pictures and never holds up the
/// recording or the other viewers. A new viewer is sent the newest picture at once.
final class PreviewHub: Sendable {
    static let maxViewers = 32
    static let boundary = "reelpreview"

    private struct State {
        var sequence = 0
        /// The newest picture, framed as a part of the multipart stream.
        var latest: [UInt8]?
        /// Held weakly: libmicrohttpd holds a viewer's stream while it is sent (its end removes it from here).
        var viewers: [Viewer] = []
        var closed = false
    }

    private struct Viewer {
        weak var stream: ResponseStream?
    }

    private let state = Locked(State())

    /// A new picture from the session's preview.
    func deliver(_ picture: PreviewOutput.Picture) {
        let (part, viewers) = state.withLock { state -> ([UInt8], [ResponseStream]) in
            state.sequence += 1
            // The capture time lets a client (the benchmark) measure the latency from capture to delivery.
            let head = "--\(PreviewHub.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(picture.jpeg.count)\r\n"
                + "X-Reel-Picture: \(state.sequence)\r\nX-Reel-Captured: \(picture.capturedAt)\r\n\r\n"
            let part = Array(head.utf8) + picture.jpeg + Array("\r\n".utf8)
            state.latest = part
            return (part, state.viewers.compactMap(\.stream))
        }
        for viewer in viewers { viewer.send(part) }
    }

    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// A stream for one viewer, or nil when there are too many already.
    func view() -> ResponseStream? {
        // A stream being released is already nil here: its entry goes.
        let stream = ResponseStream(limit: 1, finished: { [weak self] in
            self?.state.withLock { $0.viewers.removeAll { $0.stream == nil } }
        })
        let latest = state.withLock { state -> [UInt8]?? in
            guard !state.closed, state.viewers.count < PreviewHub.maxViewers else { return nil }
            state.viewers.append(Viewer(stream: stream))
            return .some(state.latest)
        }
        guard let latest else { return nil }
        if let latest { stream.send(latest) }
        return stream
    }

    /// Ends every viewer's stream (the server is stopping).
    func close() {
        let viewers = state.withLock { state -> [ResponseStream] in
            state.closed = true
            return state.viewers.compactMap(\.stream)
        }
        for viewer in viewers { viewer.end() }
    }
}
