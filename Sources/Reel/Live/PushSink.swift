import FFmpegCore
import Glibc
import SystemSupport

/// A live stream pushed to a server (LivePush): the movie's packets muxed by libavformat (MPEG-TS for SRT,
/// FLV for RTMP) into a connection this thread owns. Every blocking call is bounded: connecting by
/// `connectLimit`, each write by `stallLimit` (a server that stops reading is a lost connection), the end
/// by the same. A lost or refused connection is tried again after LiveBackoff's wait; meanwhile, and until
/// the next keyframe after a new connection, packets are let go (counted). The movie never waits here.
final class PushSink: LiveSink {
    let push: LivePush
    /// The encoders' stream descriptions, copied on the movie's thread (this thread never reads an encoder).
    private let video: StreamParameters?
    private let audio: StreamParameters?
    private let events: @Sendable (LiveEvent) -> Void
    /// Raised when the movie ends: a connection attempt under way is given up (writes are not: what the
    /// server takes within `stallLimit` is sent).
    let abandon = InterruptFlag()

    static let connectLimit = 5.0
    static let stallLimit = 5.0
    /// An SRT sender keeps its socket this long on close for what the receiver has not acknowledged yet
    /// (libsrt's live-mode default, 0, throws away the last second of a stream; a URL's linger wins).
    static let srtLinger = "2"

    private struct Connection {
        let context: OutputContext
        let flag: InterruptFlag
        let videoIndex: Int?
        let audioIndex: Int?
        let since: Int64
    }
    private var connection: Connection?
    private var backoff = LiveBackoff()
    /// When the next attempt is due (monotonic nanoseconds).
    private var nextAttempt: Int64 = 0
    private var everConnected = false
    private var ending = false
    /// After a (re)connection the stream starts with a keyframe; the sound that comes before it waits here.
    private var waitingForKeyframe = true
    private var pendingAudio: [Packet] = []
    /// About 10 s of AAC at 48 kHz.
    static let pendingAudioLimit = 470
    private var failure: String?

    private var bytesSent: Int64 = 0
    private var connectedNanoseconds: Int64 = 0
    private var reconnects = 0
    private var gaps = 0
    private var discardedPackets = 0
    private var discardedGroups = 0
    /// Media sent, in the video's (or, without video, the audio's) ticks.
    private var sentTicks: Int64 = 0

    init(push: LivePush, video: StreamParameters?, audio: StreamParameters?, events: @escaping @Sendable (LiveEvent) -> Void) {
        self.push = push
        self.video = video
        self.audio = audio
        self.events = events
    }

    func take(_ item: LiveItem, recycle: (Packet) -> Void) {
        switch item {
        case .video(let packet):
            // The keyframe's time is read before the packet is written (the muxer empties it) and recycled.
            let starts = connection != nil && waitingForKeyframe && packet.isKeyframe ? packet.pts : nil
            send(packet, isVideo: true)
            recycle(packet)
            if let starts { sendPendingAudio(from: starts, recycle: recycle) }
        case .audio(let packet):
            if connection != nil, waitingForKeyframe, video != nil {
                // x264 holds pictures back (lookahead, B-frames): the sound of the keyframe's time comes first.
                pendingAudio.append(packet)
                if pendingAudio.count > PushSink.pendingAudioLimit {
                    discard(pendingAudio.removeFirst(), isVideo: false, recycle: recycle)
                }
                return
            }
            send(packet, isVideo: false)
            recycle(packet)
        case .gap:
            gaps += 1
        case .clock:
            break
        }
    }

    func tick(ending: Bool) {
        if ending {
            // The last batch is being taken: no new attempt, no reconnection announced.
            self.ending = true
            return
        }
        guard connection == nil, failure == nil, MonotonicClock.nanoseconds() >= nextAttempt else { return }
        connect()
    }

    func finish(recycle: (Packet) -> Void) {
        ending = true
        for packet in pendingAudio { recycle(packet) }
        pendingAudio.removeAll()
        guard let open = connection else { return }
        open.flag.setDeadline(secondsFromNow: PushSink.stallLimit)
        do {
            try open.context.finish()
        } catch {
            events(.connection(LiveConnection(url: push.displayURL, state: .disconnected, reason: PushSink.reason(error, open.flag))))
        }
        close()
    }

    func result(dropped: LiveDrops) -> LiveResult {
        let tick = video.map { $0.timeBase } ?? audio.map { $0.timeBase }
        var result = LiveResult(kind: push.transport.rawValue, playlist: nil, segments: 0, listedSegments: 0, bytes: bytesSent,
                                duration: tick.map { Double(sentTicks) * $0.doubleValue } ?? 0,
                                droppedPackets: dropped.packets + discardedPackets, gaps: gaps, error: failure ?? dropped.referenceFailure)
        result.url = push.displayURL
        result.reconnects = reconnects
        result.connectedSeconds = Double(connectedNanoseconds + (connection.map { MonotonicClock.nanoseconds() - $0.since } ?? 0)) / 1e9
        result.droppedGOPs = dropped.groups + discardedGroups
        return result
    }

    private func send(_ packet: Packet, isVideo: Bool) {
        if connection == nil, failure == nil, !ending, MonotonicClock.nanoseconds() >= nextAttempt { connect() }
        guard let open = connection else {
            discard(packet, isVideo: isVideo)
            return
        }
        if waitingForKeyframe {
            guard isVideo && packet.isKeyframe || video == nil else {
                discard(packet, isVideo: isVideo)
                return
            }
            waitingForKeyframe = false
        }
        guard let index = isVideo ? open.videoIndex : open.audioIndex else { return }
        let ticks = isVideo || video == nil ? packet.duration : 0
        packet.streamIndex = index
        open.flag.setDeadline(secondsFromNow: PushSink.stallLimit)
        do {
            try open.context.write(packet)
            sentTicks += ticks
        } catch {
            lose(PushSink.reason(error, open.flag))
        }
        open.flag.setDeadline(secondsFromNow: nil)
    }

    private func discard(_ packet: Packet, isVideo: Bool) {
        discardedPackets += 1
        if isVideo && packet.isKeyframe { discardedGroups += 1 }
    }

    private func discard(_ packet: Packet, isVideo: Bool, recycle: (Packet) -> Void) {
        discard(packet, isVideo: isVideo)
        recycle(packet)
    }

    /// The sound held back for the first keyframe after a connection: what plays from its time on is sent
    /// (with one packet before it), what ends earlier is let go (counted).
    private func sendPendingAudio(from keyframeTime: Int64, recycle: (Packet) -> Void) {
        guard let video, let audio else { return }
        let start = Double(keyframeTime) * video.timeBase.doubleValue
        let tick = audio.timeBase.doubleValue
        let pending = pendingAudio
        pendingAudio.removeAll(keepingCapacity: true)
        for packet in pending {
            // One packet ending at or just before the picture is kept: an AAC decoder's first frame primes it
            // (at the movie's start, the encoder's priming frame: the sound that plays with the first picture
            // decodes whole).
            if Double(packet.pts + 2 * packet.duration) * tick > start {
                send(packet, isVideo: false)
                recycle(packet)
            } else {
                discard(packet, isVideo: false, recycle: recycle)
            }
        }
    }

    private func connect() {
        // A name that does not resolve (no network yet, DNS down) is waited for; FFmpeg would report it as an
        // I/O error, which from an RTMP server means it refused the stream. The system resolver bounds the wait.
        if let problem = PushSink.lookUp(push.host) {
            retry(after: "cannot look up \(push.host): \(problem)")
            return
        }
        let flag = InterruptFlag(following: abandon)
        flag.setDeadline(secondsFromNow: PushSink.connectLimit)
        do {
            let context = try OutputContext(path: push.url, formatName: push.transport.formatName, interrupt: flag)
            let videoIndex = try video.map { try context.addStream($0) }
            let audioIndex = try audio.map { try context.addStream($0) }
            let muxer: [(key: String, value: String)] = push.transport == .rtmp ? [("flvflags", "no_duration_filesize")] : []
            let io: [(key: String, value: String)] = push.transport == .srt ? [("linger", PushSink.srtLinger)] : []
            try context.writeHeader(options: muxer, ioOptions: io)
            flag.setDeadline(secondsFromNow: nil)
            flag.stopFollowing()
            if everConnected { reconnects += 1 }
            everConnected = true
            backoff.connected()
            waitingForKeyframe = true
            connection = Connection(context: context, flag: flag, videoIndex: videoIndex, audioIndex: audioIndex,
                                    since: MonotonicClock.nanoseconds())
            events(.connection(LiveConnection(url: push.displayURL, state: .connected)))
        } catch {
            let reason = PushSink.reason(error, flag)
            let posix = (error as? FFmpegError).flatMap { (1...4095).contains(-$0.code) ? -$0.code : nil }
            if abandon.isRaised {
                ending = true  // the movie is over: no more attempts
                return
            }
            if flag.deadlinePassed || !LiveBackoff.isPermanent(posixCode: posix, transport: push.transport, everConnected: everConnected) {
                retry(after: reason)
            } else {
                let refused = push.transport == .rtmp ? "the server refused the stream (\(reason)): check the application name and the stream key"
                                                      : "cannot stream there (\(reason))"
                failure = "\(push.displayURL): \(refused)"
                events(.stopped(result(dropped: LiveDrops())))
            }
        }
    }

    /// The connection failed while sending: closed, reported, and tried again after the backoff.
    private func lose(_ reason: String) {
        close()
        gaps += 1
        discardedGroups += 1  // the rest of the group that was being sent
        events(.connection(LiveConnection(url: push.displayURL, state: .disconnected, reason: reason)))
        if !ending { retry(after: nil) }
    }

    private func retry(after reason: String?) {
        let (attempt, delay) = backoff.failed()
        nextAttempt = MonotonicClock.nanoseconds() + Int64(delay * 1e9)
        events(.connection(LiveConnection(url: push.displayURL, state: .reconnecting, reason: reason, attempt: attempt, retryIn: delay)))
    }

    /// Closes the connection (after its trailer, or abandoned) and counts what it carried.
    private func close() {
        guard let open = connection else { return }
        open.flag.setDeadline(secondsFromNow: PushSink.stallLimit)
        open.context.abandon()
        bytesSent += open.context.bytesAtClose
        connectedNanoseconds += MonotonicClock.nanoseconds() - open.since
        connection = nil
    }

    /// Why `host` does not resolve, or nil when it does (an address resolves at once).
    private static func lookUp(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_ADDRCONFIG
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &found)
        if let found { freeaddrinfo(found) }
        return code == 0 ? nil : String(cString: gai_strerror(code))
    }

    /// Why a call failed, in words, without the address (it may hold the stream key).
    private static func reason(_ error: Error, _ flag: InterruptFlag) -> String {
        if flag.deadlinePassed { return "the server did not answer or take data for \(NumberText.plain(PushSink.stallLimit)) s" }
        if let error = error as? FFmpegError { return error.message.prefix(1).lowercased() + error.message.dropFirst() }
        return "\(error)"
    }
}
