import FFmpegCore
import SystemSupport

/// A movie that takes its pictures from the encoder of its preset (SharedVideoEncoder), as a MovieOutput
/// does: the encoder's packets in the movie's windows (EncoderWindows) go to its files on its own timeline,
/// a new file at each segment boundary's keyframe; its sound it encodes itself, from the instant of its first
/// picture, its pauses and files cut at the same keyframes.
extension SegmentBoundaries {
    /// A movie's boundaries: at its preset's frame rate and sample rate (the movie cuts its files there, and a
    /// subscriber asks its encoder for their keyframes from the same).
    init(_ setup: MovieRecorder.Setup) {
        self.init(frameRate: setup.preset.videoFrameRate, sampleRate: setup.preset.audio.sampleRate)
    }
}

extension MovieRecorder {
    /// How long a movie's end waits for its encoder's last pictures (the keyframe at its stop comes once the
    /// encoder has looked that far ahead; the session's end drains it): past this, it ends with what it has.
    static let sharedEndWait: Int64 = 10_000_000_000

    /// The subscription a setup asks for, woken through the movie's queue.
    static func subscription(_ setup: Setup, queue: OutputQueue) -> EncoderSubscription? {
        guard let (encoder, id) = setup.sharedVideo else { return nil }
        let limit = setup.limits.maxDuration.map { VideoTrack(frameRate: setup.preset.videoFrameRate, fragmentInterval: 0).slotLimit(seconds: $0) }
        // Segments by duration: their boundaries, keyframes the movie asks the encoder for; so are its live
        // streams' segments (`--live`, on the movie's timeline from its start).
        var grids: [EncoderSubscription.KeyframeGrid] = []
        if let seconds = setup.segmentation?.duration {
            let boundaries = SegmentBoundaries(setup)
            grids.append(EncoderSubscription.KeyframeGrid { index in boundaries.durationBoundary(index: index, seconds: seconds).slot })
        }
        if setup.liveSegmentDuration > 0 {
            grids.append(.every(setup.liveSegmentDuration, frameRate: setup.preset.videoFrameRate))
        }
        let join: EncoderSubscription.Join = !setup.joinsRunningSession ? .atFirstPicture : setup.hasAudio ? .atFirstSound : .now
        return EncoderSubscription(encoder, id: id, slotLimit: limit, grids: grids, join: join,
                                   handed: { [queue] in queue.handedUntil }) { [queue] in queue.nudge() }
    }

    /// A movie's own pauses. Live movies pause at the instant asked; a file's timeline has no such clock: at
    /// the next item. A subscriber's pauses fall where its encoder makes their keyframes.
    static func pauses(_ setup: Setup, subscription: EncoderSubscription?) -> PauseRequests {
        var alignment: PauseRequests.Alignment? = nil
        if let subscription {
            alignment = { pausing, time in EncoderSubscription.together([subscription], pausing: pausing, atMicroseconds: time) }
        }
        return PauseRequests(sessionStart: setup.timelineFromInputStart ? nil : setup.sessionStart, alignment: alignment)
    }

    /// The movie's time zero is its first slot's instant on the encoder's timeline, once it joined and the
    /// encoder had a picture.
    func adoptSharedOrigin() {
        guard origin == nil, let subscription, let first = subscription.current.start,
              let start = subscription.encoder.microseconds(ofSlot: first) else { return }
        origin = Timestamp(value: start, timeBase: sessionTimeBase)
    }

    /// Writes the encoder's new packets that fall in the movie's windows, each moved to the movie's timeline
    /// (by the slots before its start and in its pauses). `final`: the movie ends, so this waits for its last
    /// pictures — the keyframe at its stop or its limit, or the encoder's end — at most `sharedEndWait`.
    func takeSharedPictures(final: Bool) throws {
        guard let subscription, !videoDone else { return }
        // Stopped before its first sound came: it never joined, so no picture of the encoder's is its.
        if final && !subscription.hasJoined { return videoDone = true }
        let deadline = MonotonicClock.nanoseconds() + MovieRecorder.sharedEndWait
        var taken: [Packet] = []
        repeat {
            // Stopped while paused: every picture before the pause came once the pause's keyframe did.
            if final, let from = subscription.current.pausedFrom, sharedHighestSlot >= from { break }
            // Every slot up to its stop came already — or none: stopped before the picture it joined at, which
            // its encoder then does not make for it.
            if final && subscription.hasAllPictures(taken: video.framesSent, limit: videoSlotLimit) { return videoDone = true }
            defer {
                for packet in taken { packet.unref() }
                sharedPool += taken
                taken.removeAll(keepingCapacity: true)
            }
            let take = try subscription.encoder.log.take(subscription.id, into: &taken, pool: &sharedPool,
                                                          deadline: final ? deadline : nil)
            adoptSharedOrigin()
            let windows = subscription.current
            for packet in taken where !videoDone {
                sharedHighestSlot = max(sharedHighestSlot, packet.pts)
                try place(packet, in: windows, repeatedSlots: take.repeatedSlots)
            }
            if take.ended { videoDone = true }
        } while final && !videoDone && MonotonicClock.nanoseconds() < deadline
    }

    /// One of the encoder's packets, written when the movie holds its slot. A repeat of the slot before's
    /// picture counts as the movie's duplicated frame when the movie held that slot too (not at a resume).
    private func place(_ packet: Packet, in windows: EncoderWindows, repeatedSlots: [Int64]) throws {
        if let end = windows.end, packet.pts >= end {
            // The keyframe at the stop: every picture before it has come (closed GOPs).
            if packet.isKeyframe { videoDone = true }
            return
        }
        guard let slot = windows.movieSlot(of: packet.pts) else { return }
        if let limit = videoSlotLimit, slot >= limit {
            if packet.isKeyframe { videoDone = true }
            return
        }
        if let boundary = nextBoundary, slot >= boundary.slot, packet.isKeyframe {
            // The next file begins at the boundary's keyframe (asked for ahead: EncoderSubscription); one that
            // came later than planned (it should not) moves the boundary to it rather than start a file without one.
            if slot > boundary.slot { nextBoundary = boundaries.boundary(atSlot: slot) }
            try commitBoundary()
        }
        try failIfInjected()
        let isRepeat = !repeatedSlots.isEmpty && repeatedSlots.contains(packet.pts) && windows.movieSlot(of: packet.pts - 1) != nil
        packet.dts -= packet.pts - slot
        packet.pts = slot
        video.taken(slot: slot, isRepeat: isRepeat)
        try writeVideo(packet)
        // Every slot up to its limit or stop came (one packet each, in decode order): the movie need not wait
        // for the keyframe there, which comes once the encoder has looked that far past it (or never: drained).
        if subscription?.took(movieSlot: slot, taken: video.framesSent, limit: videoSlotLimit) == true { videoDone = true }
    }
}
