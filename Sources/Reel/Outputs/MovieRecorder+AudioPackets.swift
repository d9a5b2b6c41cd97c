import FFmpegCore

/// A movie's AAC packets: one encoder per sound track for all its files, its packets routed to the files
/// whose spans they cover (SegmentRouter.routeAudio: a file starts with the frame before its first sample,
/// trimmed by its edit list as an encoder's priming is, and its last frame is cut at its end). A segmented
/// movie's sound is thus encoded once, without the AAC encoder's warm-up at every file, and its files join
/// without a seam.
extension MovieRecorder {
    /// Opens the movie's AAC encoders on their threads (none for a follower of a shared one, which takes
    /// the owner's packets).
    func openAudioEncoders() throws {
        guard setup.hasAudio, setup.writesFile, !followsSharedAudio else { return }
        for _ in 0..<setup.audioTrackCount {
            audioEncoders.append(try .aac(setup.preset, name: "reel.encoder.audio"))
            audioEncodersRunning = true
        }
        audioFrameSize = audioEncoders.first?.encoder.frameSize ?? 0
    }

    /// A follower of a shared AAC encoder with sound: its AAC packets are the owner's.
    var followsSharedAudio: Bool {
        if case .follower? = setup.sharedAudio { return setup.hasAudio }
        return false
    }

    /// Ends the AAC encoders' threads (once): with `flush`, they drain their delayed frames, whose packets are
    /// then there to collect.
    func finishAudioEncoders(flush: Bool) {
        guard audioEncodersRunning else { return }
        audioEncodersRunning = false
        audioEncodeNanoseconds += audioEncoders.reduce(0) { $0 + $1.finish(flush: flush) }
    }

    /// Writes the AAC packets encoded so far (`final`: all of them, the encoders drained) into the files that
    /// take them, and ends a file's sound once every track gave its last packet for it. The owner of a shared
    /// AAC encoder publishes each file's part for its followers; a follower takes the owner's.
    func collectAudio(final: Bool) throws {
        if followsSharedAudio { return try collectSharedAudio(final: final) }
        guard !audioEncoders.isEmpty else { return }
        let owner: SharedAudioEncoder? = if case .owner(let shared)? = setup.sharedAudio { shared } else { nil }
        var ended: [MovieSegment] = []
        // The other tracks first: each track ends a file at its own last packet for it (their threads run apart).
        for (track, encoder) in audioEncoders.enumerated().reversed() {
            try encoder.collectPackets { packet in
                if track == 0 { sendLive(audio: packet) }
                for part in segments.routeAudio(pts: packet.pts, duration: packet.duration, frameSize: Int64(audioFrameSize)) {
                    try routedAudioPacket.reference(packet)
                    routedAudioPacket.pts = part.pts
                    routedAudioPacket.dts = part.pts
                    routedAudioPacket.duration = part.duration
                    if track == 0 { part.file.audioSamplesEncoded += part.samples }
                    if track == 0, let owner {
                        let copy = spareSharedPackets.popLast() ?? Packet()
                        try copy.reference(routedAudioPacket)
                        if let spare = owner.publishAudio(segment: part.file.index, copy) { spareSharedPackets.append(spare) }
                    }
                    if part.isLast {
                        part.file.audioTracksEnded += 1
                        if part.file.audioTracksEnded == audioEncoders.count { ended.append(part.file) }
                    }
                    try write(routedAudioPacket, stream: audioStream + track, to: part.file)
                }
                packet.unref()
            }
        }
        for segment in ended { try endAudioTrack(of: segment) }
    }

    /// A follower: the owner's AAC packets of each file still taking sound, as the owner wrote them there.
    private func collectSharedAudio(final: Bool) throws {
        guard case .follower(let shared, let index)? = setup.sharedAudio else { return }
        for segment in segments.open where !segment.audioEnded {
            let ended: Bool
            sharedAudioHandout.removeAll(keepingCapacity: true)
            do {
                ended = try shared.takeAudio(segment: segment.index, follower: index, waitForEnd: final, into: &sharedAudioHandout)
            } catch let stopped as SharedAudioEncoder.OwnerStopped {
                // The owner's file reached a limit of the disk first: this one ends there too.
                stopReason = stopped.reason
                audioDone = true
                return
            }
            for published in sharedAudioHandout {
                try sharedAudioPacket.reference(published)
                if segment.index == 1 { sendLive(audio: sharedAudioPacket) }
                segment.audioSamplesEncoded += max(0, sharedAudioPacket.pts + sharedAudioPacket.duration - max(sharedAudioPacket.pts, 0))
                try write(sharedAudioPacket, stream: audioStream, to: segment)
            }
            if ended { try endAudioTrack(of: segment) }
        }
    }

    /// A file's sound tracks end: no more AAC packets come to it.
    private func endAudioTrack(of segment: MovieSegment) throws {
        guard !segment.audioEnded else { return }
        segment.audioEnded = true
        for track in 0..<setup.audioTrackCount { _ = try segment.writer.endStream(audioStream + track) }
        if case .owner(let shared)? = setup.sharedAudio { shared.endedAudio(segment: segment.index) }
    }

    /// At the end: the AAC encoders are drained into the files, and every file's sound ends.
    func endAllAudio() throws {
        finishAudioEncoders(flush: true)
        try collectAudio(final: true)
        for segment in segments.open { try endAudioTrack(of: segment) }
    }
}
