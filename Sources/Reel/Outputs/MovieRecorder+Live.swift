import FFmpegCore
import FoundationEssentials
import SystemSupport

/// A movie's live streams (`--live`): each gets a reference to every packet the movie writes, on the movie's
/// own timeline (a segmented movie's files restart their times; the streams' do not).
extension MovieRecorder {
    func openLiveStreams() throws {
        guard !setup.live.isEmpty else { return }
        // The movie's own AAC packets run on across its files (MovieRecorder+AudioPackets); a follower of a shared
        // AAC encoder gets a segmented movie's packets per file, and a movie without a file has no encoder of its own.
        if setup.hasAudio && (!setup.writesFile || (setup.segmentation != nil && followsSharedAudio)) {
            liveAudio = try LiveAudio(setup.preset)
        }
        for live in setup.live { open(live) }
    }

    private func open(_ live: LiveOutput) {
        let audio = liveAudio?.encoder ?? segments.current?.audioStreamEncoder
        if let replay = live.replayBuffer {
            do {
                try replay.open(video: videoEncoder, audio: audio, rotation: setup.rotation,
                                minFreeBytes: setup.limits.minFreeDiskSpace) { [weak self] in self?.newestPictureSlot ?? -1 }
            } catch {
                segmentEvents(.liveStopped(LiveResult(kind: "replay", segments: 0, listedSegments: 0, bytes: 0, duration: 0,
                                                      droppedPackets: 0, gaps: 0, error: "the replay buffer could not start: \(error)")))
                return
            }
        }
        live.open(video: videoEncoder, audio: audio, frameDuration: videoTimeBase.doubleValue, rotation: setup.rotation) { [segmentEvents] event in
            switch event {
            case .stopped(let result): segmentEvents(.liveStopped(result))
            case .connection(let connection): segmentEvents(.liveConnection(connection))
            }
        }
        liveOutputs.append(live)
    }

    /// Streams added while the movie records join at the next picture, which the movie makes a keyframe (the
    /// stream starts there instead of waiting up to a GOP; a subscriber asks its encoder for it, and for the
    /// keyframes of an HLS stream's grid). Its times are the movie's: a push's server sees the media time the
    /// movie is at.
    func joinLiveStreams() {
        let joining = liveJoins.take()
        guard !joining.isEmpty else { return }
        for live in joining {
            var grid: EncoderSubscription.KeyframeGrid? = nil
            if let stream = live.hlsStream, video.liveSegmentDuration == 0 {
                video.startLiveSegments(every: stream.segmentDuration)
                grid = .every(stream.segmentDuration, frameRate: setup.preset.videoFrameRate)
            }
            open(live)
            let first = subscription.map { $0.joinStream(grid: grid) } ?? video.nextSlotToSend
            liveJoinSlots[ObjectIdentifier(live)] = (first, false)
        }
        if subscription == nil { video.requestKeyframe() }
    }

    /// The movie's slot of the newest picture it has been given (what a replay saved now must reach; -1
    /// before the first): a subscriber's is its encoder's newest, on the movie's timeline.
    var newestPictureSlot: Int64 {
        guard let subscription else { return newestPicture.load(ordering: .acquiring) }
        return subscription.current.lastMovieSlot(atOrBefore: subscription.encoder.newestSlot) ?? -1
    }

    /// The streams' sound ends with the movie's: its last samples, the encoder drained (called once the
    /// movie's own encoders are, so its CPU time is in the stages). A failure here is the streams', not the movie's.
    func finishLiveAudio() {
        guard let liveAudio, !liveAudio.finished else { return }
        do {
            try liveAudio.finish()
            try sendLiveAudio()
        } catch {
            liveAudioFailure = liveAudioFailure ?? "the stream's sound failed: \(error)"
        }
        audioEncodeNanoseconds += liveAudio.encodedNanoseconds
    }

    /// The streams' ends, with what each wrote.
    func finishLiveStreams() -> [LiveResult] {
        // A stream added too late to join gets a result that says so.
        let late = liveJoins.close().map { live in
            var result = live.finish()
            result.error = "the movie ended before the stream could join it"
            return result
        }
        guard !liveOutputs.isEmpty else { return late }
        finishLiveAudio()  // when no file was open at the end (its encoders were finished before)
        for live in liveOutputs { live.end() }  // all at once: a stalled push does not hold the others up
        let results = liveOutputs.map { live in
            var result = live.finish()
            if result.error == nil { result.error = liveAudioFailure }
            return (result, live.isStream)
        }
        // A replay buffer's end is its saves (ReplayBuffer.saves), a trigger's its movies: not a stream's.
        return results.filter(\.1).map(\.0) + late
    }

    /// Samples the movie encodes (from its sample `position` on), for the streams' own encoder (LiveAudio). A
    /// failure of this second encode ends the streams' sound and is reported in their results; the movie goes on.
    func sendLive(samples frame: Frame, at position: Int64) {
        guard let liveAudio, liveAudioFailure == nil else { return }
        do {
            try liveAudio.append(frame, start: position)
            try sendLiveAudio()
        } catch {
            liveAudioFailure = "the stream's sound failed: \(error)"
        }
    }

    private func sendLiveAudio() throws {
        guard let liveAudio else { return }
        dateLiveStreams()
        try liveAudio.collect { packet in
            for live in liveOutputs { live.audio(packet, offset: 0) }
        }
    }

    /// A video packet with the movie's slot times, before its file's own.
    func sendLive(video packet: Packet) {
        guard !liveOutputs.isEmpty else { return }
        dateLiveStreams()
        for live in liveOutputs {
            if let joined = liveJoinSlots[ObjectIdentifier(live)], !joined.started {
                guard packet.isKeyframe, packet.pts >= joined.slot else { continue }
                liveJoinSlots[ObjectIdentifier(live)]?.started = true
            }
            live.video(packet)
        }
    }

    /// An AAC packet of the movie's encoder, on the movie's timeline (streams with LiveAudio take its packets instead).
    func sendLive(audio packet: Packet) {
        guard !liveOutputs.isEmpty, liveAudio == nil else { return }
        dateLiveStreams()
        for live in liveOutputs {
            // A stream that joined takes the sound from its first picture on.
            if let joined = liveJoinSlots[ObjectIdentifier(live)],
               packet.pts + packet.duration <= Int64((Double(joined.slot) * videoTimeBase.doubleValue * Double(setup.preset.audio.sampleRate)).rounded()) {
                continue
            }
            live.audio(packet, offset: 0)
        }
    }

    /// Tells the streams the wall-clock time of the movie's zero once it has one (the session clock's
    /// start plus the movie's origin on it), for their EXT-X-PROGRAM-DATE-TIME.
    private func dateLiveStreams() {
        guard !liveStreamsDated, origin != nil else { return }
        liveStreamsDated = true
        redateLiveStreams(from: 0)
    }

    /// After a pause the movie's origin moved on by the pause: media from `seconds` on is that much later.
    func redateLiveStreams(from seconds: Double) {
        guard !liveOutputs.isEmpty, let origin else { return }
        let zero = setup.sessionStart + Int64((origin.seconds * 1_000_000_000).rounded())
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded()) - (MonotonicClock.nanoseconds() - zero) / 1_000_000
        for live in liveOutputs { live.setWallClock(atZero: milliseconds, from: seconds) }
    }
}
