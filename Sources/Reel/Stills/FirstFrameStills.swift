import FFmpegCore
import Synchronization
import SystemSupport

/// The pictures of a session's first frame (`--still`), written on the session's thread from the raw first
/// picture (sharper than decoding it back out of H.264), turned upright. The first path becomes the first
/// result's `still`. A still that cannot be written ends the session as failed.
final class FirstFrameStills: SessionOutput, Sendable {
    private let requests: [StillRequest]
    private let rotation: DisplayTurn
    /// The first still's path once written (nil before, and if none could be).
    private let written = Locked<String?>(nil)
    private let taken = Atomic<Bool>(false)

    init(_ requests: [StillRequest], rotation: DisplayTurn) {
        self.requests = requests
        self.rotation = rotation
    }

    var role: SessionOutputRole { .companion }
    func start() {}
    func wants(_ type: MediaType) -> Bool { type == .video && !isDone }
    var isDone: Bool { taken.load(ordering: .acquiring) }
    func end(_ ending: SessionEngine.Ending) {}

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws {
        guard type == .video, !taken.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for still in requests { try StillImageWriter.write(item.picture(0), rotation: rotation, to: still) }
        written.withLock { $0 = requests.first?.path }
    }

    func annotate(_ results: inout [RecordingResult]) {
        if !results.isEmpty { results[0].still = written.withLock { $0 } }
    }
}
