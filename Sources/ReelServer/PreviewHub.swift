import Reel
import SystemSupport

/// The live preview as MJPEG (`multipart/x-mixed-replace`): the session's PreviewOutput encodes small JPEGs
/// on its own thread; the hub keeps only the newest, and each viewer is sent the newest picture it has not
/// had yet, so a slow viewer skips pictures and never holds up the recording or the other viewers.
final class PreviewHub: @unchecked Sendable {
    static let maxViewers = 32
    static let boundary = "reelpreview"

    private let condition = Condition()
    private var latest: (sequence: Int, picture: PreviewOutput.Picture)?
    private var viewers = 0
    private var closed = false

    /// A new picture from the session's preview.
    func deliver(_ picture: PreviewOutput.Picture) {
        condition.withLock {
            latest = ((latest?.sequence ?? 0) + 1, picture)
            condition.broadcast()
        }
    }

    var viewerCount: Int { condition.withLock { viewers } }

    /// A stream for one viewer, or nil when there are too many already.
    func view() -> ResponseStream? {
        let admitted = condition.withLock { () -> Bool in
            guard !closed, viewers < PreviewHub.maxViewers else { return false }
            viewers += 1
            return true
        }
        guard admitted else { return nil }
        let sent = Locked(0)
        return ResponseStream(next: { [self] in
            guard let (sequence, picture) = self.waitForPicture(newerThan: sent.withLock { $0 }) else { return nil }
            sent.withLock { $0 = sequence }
            // The capture time lets a client (the benchmark) measure the latency from capture to delivery.
            let head = "--\(PreviewHub.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(picture.jpeg.count)\r\n"
                + "X-Reel-Picture: \(sequence)\r\nX-Reel-Captured: \(picture.capturedAt)\r\n\r\n"
            return Array(head.utf8) + picture.jpeg + Array("\r\n".utf8)
        }, finished: { [self] in
            condition.withLock { viewers -= 1 }
        })
    }

    private func waitForPicture(newerThan sequence: Int) -> (Int, PreviewOutput.Picture)? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if let latest, latest.sequence > sequence { return (latest.sequence, latest.picture) }
            condition.wait()
        }
        return nil
    }

    /// Ends every viewer's stream (the server is stopping).
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
