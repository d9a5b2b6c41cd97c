import FoundationEssentials
import SystemSupport

/// Photos from a running session, as AVCapturePhotoOutput beside a movie output: `capture(to:)` takes the
/// next picture the session captures, at the session's first movie size and turned upright, and writes it
/// as JPEG or PNG (by the path's extension) while the movies go on recording: none of them loses a frame.
///
/// Add it to a session with `CaptureSession.addOutput(_:)` (before or after `start`).
public final class PhotoOutput: Sendable {
    private let requests = Locked<PhotoRequests?>(nil)

    public init() {}

    func attach(_ sessionRequests: PhotoRequests) { requests.withLock { $0 = sessionRequests } }

    /// Writes the next captured picture to `still` and returns its path. Throws `ReelError.invalidInput` for
    /// an unusable path, `ReelError.runtime` when the session is not running or ends first. Cancelling the
    /// task does not withdraw the request: the picture is taken and written (it is the next frame).
    public func capture(to still: StillRequest) async throws -> String {
        try still.validate()
        guard let sessionRequests = requests.withLock({ $0 }) else {
            throw ReelError.runtime("the photo output is not part of a running session: add it with addOutput and start the session")
        }
        return try await withCheckedThrowingContinuation { continuation in
            sessionRequests.add(PhotoRequests.Pending(still: still) { result in continuation.resume(with: result) })
        }
    }

    /// The blocking form of `capture(to:)`, for threads outside Swift concurrency.
    @available(*, noasync, message: "use capture(to:) from async code")
    public func captureAndWait(to still: StillRequest) throws -> String {
        try still.validate()
        guard let sessionRequests = requests.withLock({ $0 }) else {
            throw ReelError.runtime("the photo output is not part of a running session: add it with addOutput and start the session")
        }
        let outcome = Locked<Result<String, ReelError>?>(nil)
        sessionRequests.add(PhotoRequests.Pending(still: still) { result in outcome.withLockNotifying { $0 = result } })
        return try outcome.wait { $0 }.get()
    }
}
