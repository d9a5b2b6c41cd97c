import FFmpegCore
import Synchronization
import SystemSupport

/// One video encoder that the movies of one preset on a session's timeline (MovieOutputs, the session's own
/// movie) take their pictures from, as GStreamer's tee after an encoder or ffmpeg's `-f tee`: a second movie of
/// the preset costs muxing only, whenever it is added, paused, resumed or stopped. It is an output of its own,
/// on a thread of its own: it takes the rendition's pictures on the session's timeline from its first picture
/// (from the input's start for the session's own movies of a file; the same cadence as a movie's,
/// VideoCadence), a timeline that never pauses, and puts its packets in an
/// EncodedPacketLog. Each movie is a subscriber (EncoderSubscription) holding windows of its slots
/// (EncoderWindows) whose edges it asked to be keyframes: its join, its pauses and resumes, its stop, its
/// duration limit, its segment boundaries. A request costs every movie of the preset one keyframe where the
/// encoder's own grid had none. The encoder ends with the session, or once its last movie finished (a movie
/// added later gets a new one). While every movie is paused (once each has its pictures from before its pause)
/// it encodes nothing: the encoder is drained, and a new one starts at the first resume.
final class SharedVideoEncoder: @unchecked Sendable {
    /// What must be equal for movies to share it: the pictures (rendition, colour), the codec settings and
    /// rate (the preset, its name aside) and the fragments' keyframe grid.
    struct Key: Equatable {
        var preset: Preset
        var rendition: Int
        var colour: ColourDescription
        var fragmentInterval: Double

        init(_ setup: MovieRecorder.Setup) {
            preset = setup.preset
            preset.name = ""
            rendition = setup.rendition
            colour = setup.videoColour
            fragmentInterval = setup.fragmentInterval
        }
    }

    let key: Key
    let log: EncodedPacketLog
    let queue: OutputQueue
    let buffer: CaptureBuffer
    /// A live capture: requests fall at the slot of the instant they are made (the session's clock); of
    /// unpaced inputs, at the next slot the encoder sends.
    let paced: Bool
    /// The session clock's zero (monotonic nanoseconds).
    let sessionStart: Int64
    /// Its timeline starts at the input's start (made for movies on it: `Setup.timelineFromInputStart`),
    /// not at its first picture.
    let fromInputStart: Bool
    let frameRate: Rational
    let doneFlag = Atomic<Bool>(false)
    /// The slot the newest picture it was given starts at (-1 before the first): what a replay saved now reaches.
    private let newest = Atomic<Int64>(-1)
    /// Its thread's CPU time so far (after each picture), for its movies' results.
    private let ownNanoseconds = Atomic<Int64>(0)
    private let thread = Locked<WorkerThread?>(nil)
    /// The session's thread only: its first picture's time is in the log.
    private var hasOrigin = false

    // The encoder's thread only.
    private var encoder: Encoder?
    private var video: VideoTrack
    private var origin: Timestamp?
    private var heldPicture: CapturedItem?
    private let input = Frame()
    private var batch: [Packet] = []
    /// Beside each packet of `batch`: whether its picture repeats the slot before's.
    private var batchRepeats: [Bool] = []
    /// Slots sent as repeats of the slot before's picture whose packets have not come back yet.
    private var repeatsInFlight = Set<Int64>()
    /// Packets the movies are done with, unreferenced, to receive the next ones into.
    private var spare: [Packet] = []
    /// The latest slot a packet came back for.
    private var highestPacket: Int64 = -1
    /// Every movie is paused: the encoder was drained and let go; the next slot sent opens a new one.
    private var skipping = false

    /// Pictures it holds (queued, held, being encoded), as a movie does.
    static func pictureSlots(paced: Bool) -> Int { paced ? MovieRecorder.livePictureQueue + 2 : 2 }

    init(key: Key, buffer: CaptureBuffer, paced: Bool, sessionStart: Int64, fromInputStart: Bool) {
        self.key = key
        self.fromInputStart = fromInputStart
        self.buffer = buffer
        self.paced = paced
        self.sessionStart = sessionStart
        frameRate = key.preset.videoFrameRate
        log = EncodedPacketLog(encoderWaits: !paced)
        queue = OutputQueue(pictureLimit: paced ? MovieRecorder.livePictureQueue : nil)
        video = VideoTrack(frameRate: frameRate, fragmentInterval: key.fragmentInterval)
    }

    // MARK: the session's clock and the encoder's slots

    /// The first slot starting at or after session time `microseconds` (nil before the first picture).
    func slot(atOrAfter microseconds: Int64) -> Int64? {
        guard let origin = log.origin else { return nil }
        let frames = Double(microseconds - origin.rescaled(to: sessionTimeBase).value) / 1e6 * frameRate.doubleValue
        return Int64((frames - 1e-6).rounded(.up))
    }

    /// The session time (microseconds) at which slot `slot` starts; nil before the first picture.
    func microseconds(ofSlot slot: Int64) -> Int64? {
        guard let origin = log.origin else { return nil }
        return origin.rescaled(to: sessionTimeBase).value + Int64((Double(slot) / frameRate.doubleValue * 1e6).rounded())
    }

    /// The slot that starts at session time `microseconds` (as `microseconds(ofSlot:)` gave it).
    func slot(atMicroseconds microseconds: Int64) -> Int64? {
        guard let origin = log.origin else { return nil }
        return Int64((Double(microseconds - origin.rescaled(to: sessionTimeBase).value) / 1e6 * frameRate.doubleValue).rounded())
    }

    var newestSlot: Int64 { newest.load(ordering: .acquiring) }

    /// The session's clock now, in microseconds.
    var now: Int64 { (MonotonicClock.nanoseconds() - sessionStart) / 1000 }

    /// A keyframe at the slot of the instant `microseconds` on the session's clock, or the first slot the
    /// encoder has not sent yet; the latter always of unpaced inputs, whose pictures do not come on that clock.
    func requestKeyframe(atMicroseconds microseconds: Int64) -> Int64 {
        log.requestKeyframe(atOrAfter: paced ? slot(atOrAfter: microseconds) ?? 0 : 0)
    }

    /// A keyframe at the first slot that starts at or after an item captured at `microseconds` (paced or not;
    /// before the first picture, that picture's), or the first slot the encoder has not sent yet.
    func requestKeyframe(atOrAfterItemAt microseconds: Int64) -> Int64 {
        log.requestKeyframe(atOrAfter: slot(atOrAfter: microseconds) ?? 0)
    }

    // MARK: the thread

    private func run() {
        let start = CPUClock.threadNanoseconds()
        defer { ownNanoseconds.store(CPUClock.threadNanoseconds() - start, ordering: .releasing) }
        var finished = false
        do {
            let opened = try key.preset.openVideoEncoder(colour: key.colour)
            encoder = opened
            log.opened(opened)
        } catch {
            log.fail("the video encoder could not be opened: \(error)")
            finish(flushing: false)
            finished = true
        }
        queue.beginLimiting()
        loop: while true {
            switch queue.take() {
            case .item(let type, let item):
                guard !finished, type == .video, item.hasPicture(key.rendition) else {
                    buffer.release(type, item.slot)
                    continue
                }
                do {
                    defer { ownNanoseconds.store(CPUClock.threadNanoseconds() - start, ordering: .releasing) }
                    try encode(item)
                } catch {
                    log.fail("the video encoder failed: \(error)")
                    finish(flushing: false)
                    finished = true
                }
                // Its last movie finished: nothing more is encoded.
                if !finished && log.closeIfUnused() {
                    finish(flushing: false)
                    finished = true
                }
            case .encoded:
                continue
            case .end:
                // Drained for the movies still here; none left (each ended at its limit or stop): nothing more.
                if !finished { finish(flushing: !log.closeIfUnused()) }
                break loop
            }
        }
        for (type, item) in queue.close() { buffer.release(type, item.slot) }
    }

    /// Shows the held picture in the slots the cadence gives it, and holds this one in its place.
    private func encode(_ item: CapturedItem) throws {
        // Its first picture's time, which the session's thread gave the log (the picture may have been dropped).
        if origin == nil { origin = log.origin ?? item.time }
        let slots = video.arrive(after: item.time - origin!)
        newest.store(slots.upperBound, ordering: .releasing)
        let previous = heldPicture
        heldPicture = item
        if let previous {
            defer { buffer.release(.video, previous.slot) }
            try show(previous.picture(key.rendition), in: slots)
        }
    }

    private func show(_ picture: Frame, in slots: Range<Int64>) throws {
        guard encoder != nil, !slots.isEmpty else { return }
        try input.reference(picture)
        defer { input.unref() }
        for slot in slots {
            guard case .send(let asked) = log.beginSend(slot: slot, highestPacket: highestPacket) else {
                try pauseEncoding()
                continue
            }
            let encoder = try resumeEncoding()
            input.pts = slot
            let isRepeat = slot > slots.lowerBound
            if isRepeat { repeatsInFlight.insert(slot) }
            input.forcesKeyframe = video.send(slot: slot, segmentStart: 0, isRepeat: isRepeat) || asked
            try send(input, to: encoder)
        }
    }

    /// Every movie is paused and has its pictures from before: the encoder is drained (what it still holds
    /// lies in their pauses) and let go, so a paused movie costs no encoding.
    private func pauseEncoding() throws {
        guard !skipping, let encoder else { return }
        skipping = true
        try send(nil, to: encoder)
    }

    /// The encoder for the next slot: after a pause of every movie, a new one (its first picture a keyframe,
    /// as every resume's is), whose parameter sets must be the first one's that the files were described with.
    private func resumeEncoding() throws -> Encoder {
        guard skipping, let first = encoder else { return encoder! }
        let next = try key.preset.openVideoEncoder(colour: key.colour)
        guard next.extradata == first.extradata else {
            throw ReelError.runtime("a new video encoder at the same settings made other parameter sets: the movies cannot go on")
        }
        skipping = false
        encoder = next
        return next
    }

    private func send(_ frame: Frame?, to encoder: Encoder) throws {
        if try encoder.send(frame) == .outputFull {
            try receivePackets(from: encoder)
            _ = try encoder.send(frame)
        }
        try receivePackets(from: encoder)
        log.publish(batch, repeated: batchRepeats, spare: &spare)
        batch.removeAll(keepingCapacity: true)
        batchRepeats.removeAll(keepingCapacity: true)
    }

    private func receivePackets(from encoder: Encoder) throws {
        while true {
            let packet = spare.popLast() ?? Packet()
            guard try encoder.receive(into: packet) == .received else {
                spare.append(packet)  // kept for the next send: no allocation per picture
                return
            }
            if packet.duration == 0 { packet.duration = 1 }
            highestPacket = max(highestPacket, packet.pts)
            video.packetReceived()
            batch.append(packet)
            batchRepeats.append(repeatsInFlight.remove(packet.pts) != nil)
        }
    }

    /// The end: with `flushing`, the held picture is shown and the encoder drained into the log; the movies
    /// then take what is left.
    private func finish(flushing: Bool) {
        doneFlag.store(true, ordering: .releasing)
        if let held = heldPicture {
            heldPicture = nil
            defer { buffer.release(.video, held.slot) }
            if flushing {
                do { try show(held.picture(key.rendition), in: video.finish(atLeast: 0)) } catch { log.fail("the video encoder failed: \(error)") }
            }
        }
        if flushing, !skipping, let encoder {
            do { try send(nil, to: encoder) } catch { log.fail("the video encoder failed: \(error)") }
        }
        encoder = nil
        log.end()
    }
}

extension SharedVideoEncoder: SessionOutput {
    /// It serves its movies, which end the session as movies do; it never ends the session itself.
    var role: SessionOutputRole { .encoder }

    func start() { thread.withLock { $0 = WorkerThread(name: "reel.output.encoder") { [self] in run() } } }

    func wants(_ type: MediaType) -> Bool { type == .video && !isDone }

    var isDone: Bool { doneFlag.load(ordering: .acquiring) }

    /// Its last movie left (or it failed): the session lets go of it.
    var hasFinishedByItself: Bool { isDone }

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws {
        if !hasOrigin && type == .video && item.hasPicture(key.rendition) {
            // The timeline starts here, known at once: a movie joining at its next item finds its slot. Made
            // for the session's own movies of unpaced inputs (a file), it starts at the input's start, as
            // theirs does: a first picture that comes later is shown from there (VideoCadence), against
            // sound that starts sooner.
            hasOrigin = true
            log.setOrigin(fromInputStart ? .zero(in: sessionTimeBase) : item.time)
        }
        buffer.hold(item)
        var dropped: CapturedItem? = nil
        if !queue.offer(type, item, dropped: &dropped) { buffer.release(type, item.slot) }
        if let dropped { buffer.release(type, dropped.slot) }
    }

    /// The session's pauses are its movies' (each leaves out its own stretch); the encoder goes on.
    func setPaused(_ paused: Bool) {}

    func end(_ ending: SessionEngine.Ending) {
        queue.end(ending.reason, message: ending.message)
        // Never started (the session ended first): its movies must not wait for it.
        if thread.withLock({ $0 == nil }) { log.fail("the session ended before the movie's encoder opened") }
    }

    func waitForResult() -> RecordingResult? {
        thread.withLock { $0 }?.join()
        return nil
    }

    var ownThreadNanoseconds: Int64 { ownNanoseconds.load(ordering: .acquiring) }
}
