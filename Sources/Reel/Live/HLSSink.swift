import FFmpegCore
import QuickTime

/// A live stream's HLS files (LiveStream): LiveSegmenter cuts the packets into segments at keyframes and
/// HLSWriter writes them with the playlist. A stream whose folder fails stops there (told once through
/// `events`); the movie records on.
final class HLSSink: LiveSink {
    let writer: HLSWriter
    private var segmenter: LiveSegmenter<Packet>
    /// The movie's time zero on the wall clock (ms since 1970) from each media time on, in order.
    private var zeros: [(from: Double, zero: Int64)] = []
    private var duration = 0.0
    private var gaps = 0
    private(set) var failure: String?
    private let playlistPath: String
    private let events: @Sendable (LiveEvent) -> Void
    /// Tells a multivariant playlist what this stream now measures (after each segment).
    private let reportVariant: (HLSWriter) -> Void

    init(writer: HLSWriter, segmenter: LiveSegmenter<Packet>, playlistPath: String,
         events: @escaping @Sendable (LiveEvent) -> Void, reportVariant: @escaping (HLSWriter) -> Void) {
        self.writer = writer
        self.segmenter = segmenter
        self.playlistPath = playlistPath
        self.events = events
        self.reportVariant = reportVariant
        reportVariant(writer)
    }

    func take(_ item: LiveItem, recycle: (Packet) -> Void) {
        let done: [LiveSegmenter<Packet>.Piece]
        switch item {
        case .video(let packet): done = segmenter.addVideo(HLSSink.sample(packet), packet)
        case .audio(let packet): done = segmenter.addAudio(HLSSink.sample(packet), packet)
        case .gap: done = segmenter.markGap()
        case .clock(let zero, let from):
            zeros.append((from, zero))
            done = []
        }
        write(done, recycle: recycle)
    }

    func tick(ending: Bool) {}

    func finish(recycle: (Packet) -> Void) {
        write(segmenter.finish(), recycle: recycle)
        guard failure == nil else { return }
        do { try writer.finish() } catch { failure = "\(error)" }
    }

    func result(dropped: LiveDrops) -> LiveResult {
        var result = LiveResult(kind: "hls", playlist: playlistPath, segments: writer.segmentsWritten,
                                listedSegments: writer.playlist.segments.count, bytes: writer.bytesWritten, duration: duration,
                                droppedPackets: dropped.packets, gaps: gaps, error: failure ?? dropped.referenceFailure)
        result.droppedGOPs = dropped.groups
        if writer.playlist.lowLatency != nil { result.parts = writer.partsWritten }
        return result
    }

    private func write(_ pieces: [LiveSegmenter<Packet>.Piece], recycle: (Packet) -> Void) {
        guard !pieces.isEmpty else { return }
        let clock = segmenter.videoTimeBase ?? segmenter.audioTimeBase!
        for piece in pieces where failure == nil {
            if piece.followsGap { gaps += 1 }
            let start = Double(piece.start) * clock.secondsPerTick
            let zero = zeros.last { $0.from <= start + 1e-6 }?.zero ?? zeros.first?.zero ?? 0
            do {
                try writer.write(piece, wallClock: zero + Int64((start * 1000).rounded()))
                duration += piece.duration
                if piece.endsSegment { reportVariant(writer) }
            } catch {
                failure = "\(error)"
                events(.stopped(result(dropped: LiveDrops())))
            }
        }
        for piece in pieces {
            for entry in piece.video + piece.audio { recycle(entry.payload) }
        }
    }

    static func sample(_ packet: Packet) -> Sample {
        Sample(decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts, duration: packet.duration,
               size: packet.size, isKeyframe: packet.isKeyframe)
    }
}
