import FFmpegCore
import FoundationEssentials
import QuickTime
import SystemSupport

/// One live stream of a movie's encoders, on a thread of its own: HLS in a folder (LiveStream, HLSSink) or a
/// push to a server (LivePush, PushSink). The movie's thread hands it a reference to each packet it writes
/// (no copy, no second encode); the sink takes them here. The movie never waits for it: what waits here is
/// bounded (`queueLimit` bytes), and a stream that falls further behind (its folder's disk or its network
/// stalls) drops packets up to the next keyframe, counted, and goes on after a gap. A stream that fails for
/// good stops with an error in its result; the movie records on untouched.
final class LiveOutput: Sendable {
    enum Destination: Sendable {
        case hls(LiveStream)
        case push(LivePush)
        /// A replay buffer keeping the packets in memory (ReplaySink).
        case replay(ReplayBuffer)
        /// A triggered recording's movies (TriggerSink).
        case trigger(TriggerOutput)
    }
    let destination: Destination

    /// A replay buffer's saves end their sound where their pictures end (ReplayWindow.cut): the movie may hand
    /// it sound ahead of the pictures.
    var endsItsSoundAtItsPictures: Bool {
        if case .replay = destination { return true }
        return false
    }

    private struct State {
        var items: [LiveItem] = []
        var bytes = 0
        var ended = false
        /// Dropping until the next keyframe (the queue was full).
        var dropping = false
        var drops = LiveDrops()
        /// Packets written, unreferenced, for the next references (no allocation per packet once warm).
        var spare: [Packet] = []
        var result: LiveResult?
        var hasVideo = true
        /// The sink stopped for good (a folder failed, a server refused the stream): packets are not taken.
        var sinkStopped = false
    }
    private let state = Locked(State())
    private let thread = Locked<WorkerThread?>(nil)
    /// A push's: raised at the end so that a connection attempt under way is given up.
    private let abandon = Locked<InterruptFlag?>(nil)

    /// Bytes of packets that may wait for the stream's thread (seconds of a 720p stream).
    static let queueLimit = 24 * 1024 * 1024
    /// At least the packets a stream holds at once (the queue and up to three segments: about 1,400 at 30 fps
    /// with 6 s segments), so none is allocated once it runs.
    private static let sparePackets = 4096
    /// An HLS stream's thread is woken for each video keyframe (where a segment can end) and otherwise looks
    /// this often (audio past a cut completes a segment): no wake-up per packet. A push's is woken for every
    /// picture, and looks this often for a reconnection that comes due.
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

    /// An HLS stream that joins a running movie cuts its segments on the movie's grid (multiples of the
    /// duration from its start, where the movie forces keyframes), not from its own first picture.
    let joinsRunningMovie: Bool

    init(stream: LiveStream, variant: Variant? = nil, joinsRunningMovie: Bool = false) {
        destination = .hls(stream)
        self.variant = variant
        self.joinsRunningMovie = joinsRunningMovie
    }

    init(push: LivePush) {
        destination = .push(push)
        variant = nil
        joinsRunningMovie = false
    }

    init(replay: ReplayBuffer) {
        destination = .replay(replay)
        variant = nil
        joinsRunningMovie = false
    }

    init(trigger: TriggerOutput) {
        destination = .trigger(trigger)
        variant = nil
        joinsRunningMovie = false
    }

    /// A stream for viewers (HLS, a push), whose result the movie lists; not a buffer or a trigger's movies.
    var isStream: Bool {
        switch destination {
        case .hls, .push: return true
        case .replay, .trigger: return false
        }
    }

    /// Keyframes the output needs forced every so many seconds of the movie (HLS segments; a trigger's
    /// pre-roll starts); 0 for none.
    var keyframeGrid: Double {
        switch destination {
        case .hls(let stream): return stream.segmentDuration
        case .trigger: return TriggeredRecording.keyframeSeconds
        case .push, .replay: return 0
        }
    }

    /// The replay buffer this output fills, if it fills one.
    var replayBuffer: ReplayBuffer? {
        guard case .replay(let buffer) = destination else { return nil }
        return buffer
    }

    /// The server this output pushes to, if it is a push.
    var push: LivePush? {
        guard case .push(let push) = destination else { return nil }
        return push
    }

    /// A push and a low-latency HLS stream take each picture as it comes (latency is what they are for), a
    /// replay buffer too (a save waits for the newest picture); HLS of whole segments waits for segment boundaries.
    private var wakesForEveryPicture: Bool {
        switch destination {
        case .push, .replay, .trigger: return true
        case .hls(let stream): return stream.partDuration != nil
        }
    }

    /// The HLS stream this output writes, if it writes one (its segment duration sets the movie's keyframes).
    var hlsStream: LiveStream? {
        guard case .hls(let stream) = destination else { return nil }
        return stream
    }

    /// Opens the stream for the movie's encoders (an HLS stream's init segment; a push connects on its own
    /// thread) and starts its thread. `events` is told at once when the stream stops before the movie ends
    /// and when a push's connection changes.
    func open(video: Encoder?, audio: Encoder?, frameDuration: Double, rotation: DisplayTurn = DisplayTurn(clockwiseDegrees: 0),
              events: @escaping @Sendable (LiveEvent) -> Void) {
        state.withLock { $0.hasVideo = video != nil }
        // A stop reported from the sink's thread carries what the queue dropped so far.
        let report: @Sendable (LiveEvent) -> Void = { [state] event in
            guard case .stopped(var result) = event else { return events(event) }
            let drops = state.withLock { state in
                state.sinkStopped = true
                return state.drops
            }
            result.droppedPackets += drops.packets
            events(.stopped(result))
        }
        let sink: LiveSink
        switch destination {
        case .replay(let buffer):
            sink = ReplaySink(buffer: buffer)
        case .trigger(let output):
            do {
                sink = try TriggerSink(settings: output.settings, schedule: output.schedule, video: video, audio: audio,
                                       rotation: rotation, events: output.events)
            } catch {
                let failed = LiveResult(kind: "trigger", segments: 0, listedSegments: 0, bytes: 0, duration: 0, droppedPackets: 0,
                                        gaps: 0, error: "the triggered recording could not start: \(error)")
                state.withLockNotifying { $0.result = failed }
                events(.stopped(failed))
                return
            }
        case .push(let push):
            let parameters: (video: StreamParameters?, audio: StreamParameters?)
            do {
                parameters = (try video.map(StreamParameters.init(of:)), try audio.map(StreamParameters.init(of:)))
            } catch {
                var failed = LiveResult(kind: push.transport.rawValue, segments: 0, listedSegments: 0, bytes: 0, duration: 0,
                                        droppedPackets: 0, gaps: 0, error: "\(push.displayURL): \(error)")
                failed.url = push.displayURL
                state.withLockNotifying { $0.result = failed }
                events(.stopped(failed))
                return
            }
            let pushSink = PushSink(push: push, video: parameters.video, audio: parameters.audio, events: report)
            abandon.withLock { $0 = pushSink.abandon }
            sink = pushSink
        case .hls(let stream):
            let playlist = stream.folder + "/" + HLSWriter.playlistName
            let segmenter = LiveSegmenter<Packet>(segmentDuration: stream.segmentDuration, partDuration: stream.partDuration,
                                                  videoTimeBase: video.map { TimeBase($0.timeBase) },
                                                  audioTimeBase: audio.map { TimeBase($0.timeBase) },
                                                  gridOrigin: joinsRunningMovie && video != nil ? 0 : nil)
            let writer: HLSWriter
            do {
                writer = try HLSWriter(folder: stream.folder, video: video, audio: audio, segmentDuration: stream.segmentDuration,
                                       frameDuration: frameDuration, window: stream.window,
                                       lowLatency: segmenter.partTarget.map { HLSPlaylist.LowLatency(partTarget: $0) })
            } catch {
                let failed = LiveResult(kind: "hls", playlist: playlist, segments: 0, listedSegments: 0, bytes: 0, duration: 0,
                                        droppedPackets: 0, gaps: 0, error: "\(error)")
                state.withLockNotifying { $0.result = failed }
                events(.stopped(failed))
                return
            }
            let resolution = video.map { (width: $0.width, height: $0.height) }
            sink = HLSSink(writer: writer, segmenter: segmenter, playlistPath: playlist, events: report) { [variant] writer in
                guard let variant else { return }
                variant.group.report(variant.index, HLSMultivariantPlaylist.Variant(
                    uri: variant.uri, bandwidth: max(variant.declaredBitRate, writer.peakBitRate), averageBandwidth: writer.averageBitRate,
                    codecs: writer.codecs, resolution: resolution, frameRate: resolution == nil ? nil : variant.frameRate))
            }
        }
        let owned = SinkBox(sink)
        thread.withLock { $0 = WorkerThread(name: "reel.output.live") { [self] in run(owned.sink) } }
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
            guard !state.ended, state.result == nil, !state.sinkStopped else { return false }
            let size = packet.size
            if state.dropping {
                // Back once there is room again, at a keyframe (audio alone: at any packet).
                let resumes = (isVideo && packet.isKeyframe || !isVideo && !state.hasVideo) && state.bytes + size <= LiveOutput.queueLimit / 2
                guard resumes else {
                    state.drops.packets += 1
                    if isVideo && packet.isKeyframe { state.drops.groups += 1 }
                    return false
                }
                state.dropping = false
                state.items.append(.gap)
            } else if state.bytes + size > LiveOutput.queueLimit {
                state.dropping = true
                state.drops.packets += 1
                state.drops.groups += 1
                return true
            }
            let copy = state.spare.popLast() ?? Packet()
            do {
                try copy.reference(packet)
            } catch {
                state.spare.append(copy)
                state.drops.packets += 1
                state.drops.referenceFailure = state.drops.referenceFailure ?? "a packet could not be referenced: \(error)"
                return false
            }
            copy.pts += offset
            copy.dts += offset
            state.bytes += size
            state.items.append(isVideo ? .video(copy) : .audio(copy))
            return isVideo ? packet.isKeyframe || wakesForEveryPicture : !state.hasVideo || state.bytes > LiveOutput.queueLimit / 4
        }
        if wakes { state.withLockNotifying { _ in } }
    }

    /// The movie is over: nothing more comes; a push gives up a connection attempt under way. Returns at once
    /// (a movie ends all its streams first, then waits for each: they finish side by side).
    func end() {
        state.withLockNotifying { $0.ended = true }
        abandon.withLock { $0?.raise() }
    }

    /// The movie is over: the stream writes what it holds and its end, and its result is ready. A push
    /// still trying to connect gives up at once; one connected sends what it holds (each write bounded).
    func finish() -> LiveResult {
        end()
        let running = thread.withLock { current -> WorkerThread? in
            defer { current = nil }
            return current
        }
        running?.join()
        return state.withLock { state in
            var empty: LiveResult
            switch destination {
            case .hls(let stream):
                empty = LiveResult(kind: "hls", playlist: stream.folder + "/" + HLSWriter.playlistName, segments: 0, listedSegments: 0,
                                   bytes: 0, duration: 0, droppedPackets: state.drops.packets, gaps: 0, error: nil)
            case .push(let push):
                empty = LiveResult(kind: push.transport.rawValue, segments: 0, listedSegments: 0, bytes: 0, duration: 0,
                                   droppedPackets: state.drops.packets, gaps: 0, error: nil)
                empty.url = push.displayURL
            case .replay, .trigger:
                empty = LiveResult(kind: replayBuffer != nil ? "replay" : "trigger", segments: 0, listedSegments: 0,
                                   bytes: 0, duration: 0, droppedPackets: state.drops.packets, gaps: 0, error: nil)
            }
            return state.result ?? empty
        }
    }

    private func run(_ sink: LiveSink) {
        var items: [LiveItem] = []
        let recycle: (Packet) -> Void = { [state] packet in
            packet.unref()
            state.withLock { if $0.spare.count < LiveOutput.sparePackets { $0.spare.append(packet) } }
        }
        sink.tick(ending: false)
        while true {
            items.removeAll(keepingCapacity: true)
            let deadline = MonotonicClock.nanoseconds() + LiveOutput.pollInterval
            let ended = state.wait(until: { state -> Bool? in
                guard !state.items.isEmpty || state.ended else { return nil }
                swap(&state.items, &items)  // the batch moves out; its emptied array comes back next time
                state.bytes = 0
                return state.ended
            }, deadline: deadline) ?? false
            if ended { sink.tick(ending: true) }  // the last batch: nothing is started for it
            for item in items { sink.take(item, recycle: recycle) }
            if ended { break }
            sink.tick(ending: false)
        }
        sink.finish(recycle: recycle)
        var result = sink.result(dropped: state.withLock { $0.drops })
        if result.error == nil { result.error = variant?.group.failure }
        state.withLockNotifying { $0.result = result }
    }
}

/// Hands a sink to the thread that alone uses it from then on.
private struct SinkBox: @unchecked Sendable {
    let sink: LiveSink
    init(_ sink: LiveSink) { self.sink = sink }
}
