import FFmpegCore
import FoundationEssentials
import QuickTime
import SystemSupport

/// One live stream of a movie's encoders (a LiveStream: HLS in a folder), on a thread of its own. The movie's
/// thread hands it a reference to each packet it writes (no copy, no second encode); here they are cut into
/// segments (LiveSegmenter) and written (HLSWriter). The movie never waits for it: what waits here is
/// bounded (`queueLimit` bytes), and a stream that falls further behind (its folder's disk stalls) drops
/// packets up to the next keyframe, counted, and goes on after a gap (EXT-X-DISCONTINUITY). A stream whose
/// folder fails stops with an error in its result; the movie records on untouched.
final class LiveOutput: Sendable {
    let stream: LiveStream

    private enum Item {
        case video(Packet)
        case audio(Packet)
        case gap
        /// From `from` seconds of media on, the movie's time zero is `zero` on the wall clock (ms since 1970).
        case clock(zero: Int64, from: Double)
    }

    private struct State {
        var items: [Item] = []
        var bytes = 0
        var ended = false
        /// Dropping until the next keyframe (the queue was full).
        var dropping = false
        var droppedPackets = 0
        /// Packets written, unreferenced, for the next references (no allocation per packet once warm).
        var spare: [Packet] = []
        var result: LiveResult?
        var hasVideo = true
        /// A packet that could not be referenced (out of memory): counted as dropped; the first reason is kept.
        var referenceFailure: String?
    }
    private let state = Locked(State())
    private let thread = Locked<WorkerThread?>(nil)

    /// Bytes of packets that may wait for the stream's thread (seconds of a 720p stream).
    static let queueLimit = 24 * 1024 * 1024
    /// At least the packets a stream holds at once (the queue and up to three segments: about 1,400 at 30 fps
    /// with 6 s segments), so none is allocated once it runs.
    private static let sparePackets = 4096
    /// The thread is woken for each video keyframe (where a segment can end) and otherwise looks this often
    /// (audio past a cut completes a segment): no wake-up per packet.
    static let pollInterval: Int64 = 100_000_000

    /// One variant of a multivariant stream (a recording with tiers): its group, its place there, and the
    /// bit rate the preset allows at most (BANDWIDTH before segments are measured).
    struct Variant: Sendable {
        var group: LiveVariants
        var index: Int
        var uri: String
        var declaredBitRate: Int
        var frameRate: Double
    }
    let variant: Variant?

    init(stream: LiveStream, variant: Variant? = nil) {
        self.stream = stream
        self.variant = variant
    }

    /// Opens the stream (its init segment) for the movie's encoders, and starts its thread.
    /// `stopped` is told at once if the stream fails before the movie ends (RecordingEvent.liveStopped).
    func open(video: Encoder?, audio: Encoder?, frameDuration: Double, stopped: @escaping @Sendable (LiveResult) -> Void) {
        let writer: HLSWriter
        do {
            writer = try HLSWriter(folder: stream.folder, video: video, audio: audio, segmentDuration: stream.segmentDuration,
                                   frameDuration: frameDuration, window: stream.window)
        } catch {
            let failed = result(of: nil, error: "\(error)")
            state.withLockNotifying { $0.result = failed }
            stopped(failed)
            return
        }
        let segmenter = LiveSegmenter<Packet>(segmentDuration: stream.segmentDuration,
                                              videoTimeBase: video.map { TimeBase($0.timeBase) },
                                              audioTimeBase: audio.map { TimeBase($0.timeBase) })
        state.withLock { $0.hasVideo = video != nil }
        let resolution = video.map { (width: $0.width, height: $0.height) }
        let playlist = playlistPath
        let worker = LiveWorker(writer: writer, segmenter: segmenter, stopped: { [state] worker in
            let dropped = state.withLock { $0.droppedPackets }
            stopped(LiveResult(kind: "hls", playlist: playlist, segments: worker.writer.segmentsWritten,
                               listedSegments: worker.writer.playlist.segments.count, bytes: worker.writer.bytesWritten,
                               duration: worker.duration, droppedPackets: dropped, gaps: worker.gaps, error: worker.failure))
        }) { [variant] writer in
            guard let variant else { return }
            variant.group.report(variant.index, HLSMultivariantPlaylist.Variant(
                uri: variant.uri, bandwidth: max(variant.declaredBitRate, writer.peakBitRate), averageBandwidth: writer.averageBitRate,
                codecs: writer.codecs, resolution: resolution, frameRate: resolution == nil ? nil : variant.frameRate))
        }
        worker.reportVariant(writer)
        thread.withLock { $0 = WorkerThread(name: "reel.output.live") { [self] in run(worker) } }
    }

    /// The wall-clock time of the movie's time zero (ms since 1970) from `seconds` of media on: when it is
    /// first known, and again after each pause (the media goes on where it paused; the wall clock did not).
    func setWallClock(atZero milliseconds: Int64, from seconds: Double) {
        state.withLockNotifying { state in
            guard !state.ended, state.result == nil else { return }
            state.items.append(.clock(zero: milliseconds, from: seconds))
        }
    }

    /// A video packet the movie wrote (its timestamps in frame slots from the movie's start).
    func video(_ packet: Packet) { enqueue(packet, isVideo: true, offset: 0) }
    /// An audio packet the movie wrote, whose timestamps `offset` samples on are from the movie's start.
    func audio(_ packet: Packet, offset: Int64) { enqueue(packet, isVideo: false, offset: offset) }

    private func enqueue(_ packet: Packet, isVideo: Bool, offset: Int64) {
        let wakes = state.withLock { state -> Bool in
            guard !state.ended, state.result == nil else { return false }
            let size = packet.size
            if state.dropping {
                // Back once there is room again, at a keyframe (audio alone: at any packet).
                let resumes = (isVideo && packet.isKeyframe || !isVideo && !state.hasVideo) && state.bytes + size <= LiveOutput.queueLimit / 2
                guard resumes else {
                    state.droppedPackets += 1
                    return false
                }
                state.dropping = false
                state.items.append(.gap)
            } else if state.bytes + size > LiveOutput.queueLimit {
                state.dropping = true
                state.droppedPackets += 1
                return true
            }
            let copy = state.spare.popLast() ?? Packet()
            do {
                try copy.reference(packet)
            } catch {
                state.spare.append(copy)
                state.droppedPackets += 1
                state.referenceFailure = state.referenceFailure ?? "a packet could not be referenced: \(error)"
                return false
            }
            copy.pts += offset
            copy.dts += offset
            state.bytes += size
            state.items.append(isVideo ? .video(copy) : .audio(copy))
            return isVideo ? packet.isKeyframe : !state.hasVideo || state.bytes > LiveOutput.queueLimit / 4
        }
        if wakes { state.withLockNotifying { _ in } }
    }

    /// The movie is over: the stream writes what it holds and its end, and its result is ready.
    func finish() -> LiveResult {
        state.withLockNotifying { $0.ended = true }
        let running = thread.withLock { current -> WorkerThread? in
            defer { current = nil }
            return current
        }
        running?.join()
        return state.withLock { $0.result ?? LiveResult(kind: "hls", playlist: playlistPath, segments: 0, listedSegments: 0, bytes: 0,
                                                        duration: 0, droppedPackets: $0.droppedPackets, gaps: 0, error: nil) }
    }

    private var playlistPath: String { stream.folder + "/" + HLSWriter.playlistName }

    private func run(_ worker: LiveWorker) {
        var items: [Item] = []
        while true {
            items.removeAll(keepingCapacity: true)
            let deadline = MonotonicClock.nanoseconds() + LiveOutput.pollInterval
            let ended = state.wait(until: { state -> Bool? in
                guard !state.items.isEmpty || state.ended else { return nil }
                swap(&state.items, &items)  // the batch moves out; its emptied array comes back next time
                state.bytes = 0
                return state.ended
            }, deadline: deadline) ?? false
            for item in items {
                let done: [LiveSegmenter<Packet>.Segment]
                switch item {
                case .video(let packet): done = worker.segmenter.addVideo(LiveOutput.sample(packet), packet)
                case .audio(let packet): done = worker.segmenter.addAudio(LiveOutput.sample(packet), packet)
                case .gap: done = worker.segmenter.markGap()
                case .clock(let zero, let from):
                    worker.zeros.append((from, zero))
                    done = []
                }
                worker.write(done)
                recycle(done)
            }
            if ended { break }
        }
        let last = worker.segmenter.finish()
        worker.write(last)
        recycle(last)
        worker.end()
        let dropped = state.withLock { $0.droppedPackets }
        let result = LiveResult(kind: "hls", playlist: playlistPath, segments: worker.writer.segmentsWritten,
                                listedSegments: worker.writer.playlist.segments.count, bytes: worker.writer.bytesWritten,
                                duration: worker.duration, droppedPackets: dropped, gaps: worker.gaps,
                                error: worker.failure ?? state.withLock { $0.referenceFailure } ?? variant?.group.failure)
        state.withLockNotifying { $0.result = result }
    }

    private func recycle(_ segments: [LiveSegmenter<Packet>.Segment]) {
        guard !segments.isEmpty else { return }
        state.withLock { state in
            for segment in segments {
                for entry in segment.video + segment.audio {
                    entry.payload.unref()
                    if state.spare.count < LiveOutput.sparePackets { state.spare.append(entry.payload) }
                }
            }
        }
    }

    private func result(of writer: HLSWriter?, error: String?) -> LiveResult {
        LiveResult(kind: "hls", playlist: playlistPath, segments: writer?.segmentsWritten ?? 0,
                   listedSegments: writer?.playlist.segments.count ?? 0, bytes: writer?.bytesWritten ?? 0, duration: 0,
                   droppedPackets: 0, gaps: 0, error: error)
    }

    static func sample(_ packet: Packet) -> Sample {
        Sample(decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts, duration: packet.duration,
               size: packet.size, isKeyframe: packet.isKeyframe)
    }
}

/// What the live thread owns from its start: the files, the segmenter, and what it has written.
private final class LiveWorker: @unchecked Sendable {
    let writer: HLSWriter
    var segmenter: LiveSegmenter<Packet>
    /// The movie's time zero on the wall clock (ms since 1970) from each media time on, in order.
    var zeros: [(from: Double, zero: Int64)] = []
    var duration = 0.0
    var gaps = 0
    var failure: String?

    /// Tells a multivariant playlist what this stream now measures (after each segment).
    let reportVariant: (HLSWriter) -> Void

    /// Told once, when the stream fails (its packets are let go from then on).
    let stopped: (LiveWorker) -> Void

    init(writer: HLSWriter, segmenter: LiveSegmenter<Packet>, stopped: @escaping (LiveWorker) -> Void,
         reportVariant: @escaping (HLSWriter) -> Void) {
        self.writer = writer
        self.segmenter = segmenter
        self.stopped = stopped
        self.reportVariant = reportVariant
    }

    func write(_ segments: [LiveSegmenter<Packet>.Segment]) {
        let clock = segmenter.videoTimeBase ?? segmenter.audioTimeBase!
        for segment in segments where failure == nil {
            if segment.followsGap { gaps += 1 }
            let start = Double(segment.start) * clock.secondsPerTick
            let zero = zeros.last { $0.from <= start + 1e-6 }?.zero ?? zeros.first?.zero ?? 0
            do {
                try writer.write(segment, wallClock: zero + Int64((start * 1000).rounded()))
                duration += segment.duration
                reportVariant(writer)
            } catch {
                failure = "\(error)"
                stopped(self)
            }
        }
    }

    /// The playlist's end (EXT-X-ENDLIST), unless the stream failed.
    func end() {
        guard failure == nil else { return }
        do { try writer.finish() } catch { failure = "\(error)" }
    }
}
