import FFmpegCore
import SystemSupport

/// A movie's packets: frames sent to the video encoder, its packets routed to the files (SegmentRouter) and
/// handed to their writers, the size cut planned from what they hold.
extension MovieRecorder {
    func send(_ frame: Frame?, to encoder: Encoder, stream: Int) throws {
        let start = CPUClock.threadNanoseconds()
        let muxBefore = muxNanoseconds
        defer {
            // Encoder time is the call's CPU time less the muxing done inside it.
            encodeNanoseconds[encoder.mediaType, default: 0] +=
                CPUClock.threadNanoseconds() - start - (muxNanoseconds - muxBefore)
        }
        if try encoder.send(frame) == .outputFull {
            try drainPackets(from: encoder, stream: stream)
            _ = try encoder.send(frame)
        }
        try drainPackets(from: encoder, stream: stream)
    }

    func drainPackets(from encoder: Encoder, stream: Int) throws {
        while try encoder.receive(into: packet) == .received {
            if packet.duration == 0 && encoder.mediaType == .video { packet.duration = 1 }
            try writeVideo(packet)
        }
    }

    /// A video packet goes to the file whose range holds its time (SegmentRouter), on that file's timeline;
    /// the files before it will get no more pictures.
    func writeVideo(_ packet: Packet) throws {
        video.packetReceived()
        guard setup.writesFile else {
            sendLive(video: packet)
            packet.unref()
            return
        }
        guard let (segment, isLater, ended) = segments.routeVideo(slot: packet.pts) else {
            packet.unref()
            return
        }
        for earlier in ended { _ = try earlier.writer.endStream(videoStream) }
        sendLive(video: packet)
        packet.pts -= segment.start.slot
        packet.dts -= segment.start.slot
        let size = packet.size, isKeyframe = packet.isKeyframe
        segment.videoPacketsReceived += 1
        try write(packet, stream: videoStream, to: segment)
        if isLater { try closeEndedSegments() }
        // Every picture counts towards the estimate, also those still going to the file before the last: a
        // burst of detail at the end of one file must not size the next file's pictures once it is over.
        if isKeyframe { lastKeyframeBytes = size }
        sizeCut?.note(videoPacketBytes: size, isKeyframe: isKeyframe)
        if let cut = sizeCut, segment === segments.current {
            let audioPerPicture = Double(setup.preset.audio.bitRate) / 8 * videoTimeBase.doubleValue
            if nextBoundary == nil,
               cut.mustCut(projected: segment.writer.projectedFileSize, segmentPictures: segment.videoPacketsReceived,
                            picturesInFlight: video.framesInFlight, audioBytesPerPicture: audioPerPicture) {
                planSizeCut()
            }
        }
    }

    /// Ends the current file at the next picture that can still begin a new one.
    func planSizeCut() {
        guard nextBoundary == nil else { return }
        let encodedUntil = origin.flatMap { audio.encodedEnd(originSample: $0.rescaled(to: audioTimeBase).value) }
        nextBoundary = boundaries.earliestCut(nextSlot: video.nextSlotToSend, audioEncodedUntil: encodedUntil)
    }

    func write(_ packet: Packet, stream: Int, to segment: MovieSegment) throws {
        packet.streamIndex = stream
        let start = CPUClock.threadNanoseconds()
        makeRoom(for: packet.size, in: segment)
        let outcome = try segment.writer.submit(packet)
        muxNanoseconds += CPUClock.threadNanoseconds() - start
        // A limit here is the recording's (its total size, the free-space floor): it ends the recording.
        guard case .limitReached(let reason) = outcome else { return }
        stopReason = reason
    }
}
