import FFmpegCore

/// A replay buffer as one of a movie's packet outputs (LiveOutput runs it on its thread): it keeps each
/// packet it is handed in the buffer, and gives back the ones the buffer lets go. What it holds stays for
/// saves after the movie ends.
final class ReplaySink: LiveSink {
    let buffer: ReplayBuffer
    private var packets = 0
    private var gaps = 0

    init(buffer: ReplayBuffer) { self.buffer = buffer }

    func take(_ item: LiveItem, recycle: (Packet) -> Void) {
        switch item {
        case .video(let packet), .audio(let packet):
            let isVideo = if case .video = item { true } else { false }
            packets += 1
            for gone in buffer.keep(packet, isVideo: isVideo) { recycle(gone) }
        case .gap:
            gaps += 1
            for gone in buffer.clear() { recycle(gone) }
        case .clock:
            break
        }
    }

    func tick(ending: Bool) {}

    func finish(recycle: (Packet) -> Void) { buffer.end() }

    func result(dropped: LiveDrops) -> LiveResult {
        let held = buffer.held
        return LiveResult(kind: "replay", segments: 0, listedSegments: 0, bytes: Int64(held.bytes), duration: held.seconds,
                          droppedPackets: dropped.packets, gaps: gaps, error: dropped.referenceFailure)
    }
}
