import FFmpegCore
import FoundationEssentials
import Glibc

/// A movie's sound: resampling, the queue aligned to the video's timeline, silence for holes, and the AAC
/// encoders of its files.
extension MovieRecorder {
    // MARK: audio

    func encodeAudio(_ item: CapturedItem) throws {
        guard audioFIFO != nil, !audioDone else { return }
        // One frame per track the file records (a movie without a file takes the first).
        let blocks = setup.audioTrackCount == 1 ? [item.frame] : Array(item.tracks.prefix(setup.audioTrackCount))
        guard let conversion else {
            return try queueAudio(blocks, start: item.time.rescaled(to: audioTimeBase).value, tolerance: 0)
        }
        // Another rate or channel count than the session captures: convert first. The converted samples
        // start as far before the block as swresample's delay; rounding them to this rate's samples may be
        // off by a sample or two, which is no gap.
        let start = item.time.rescaled(to: audioTimeBase).value - Int64(conversion.delay)
        guard let converted = try conversion.convert(blocks) else { return }
        try queueAudio(converted, start: start, tolerance: Int64(setup.preset.audio.sampleRate / 500))
    }

    /// Puts a block of samples in this movie's format (one frame per track), starting at sample `itemStart` of
    /// the session, into the FIFO: after silence where it leaves a hole, without the part that overlaps what is
    /// queued.
    func queueAudio(_ block: [Frame], start itemStart: Int64, tolerance: Int64) throws {
        guard let fifo = audioFIFO, !audioDone else { return }
        if audio.queueStart == nil {
            // On an input's own timeline, audio that starts after the movie does is preceded by silence; so is
            // a subscriber's, whose first picture is the first slot from its first sound (a rounding apart).
            let originSample = self.originSample ?? itemStart
            audio.queueStart = setup.timelineFromInputStart || subscription != nil ? min(itemStart, originSample) : itemStart
        }
        var overlap = 0
        switch AudioPlacement.place(start: itemStart, expected: audio.queueStart! &+ Int64(fifo.count),
                                    blockSamples: block[0].sampleCount, tolerance: tolerance,
                                    followsInputTimeline: setup.timelineFromInputStart, sampleRate: setup.preset.audio.sampleRate) {
        case .append: break
        case .silenceFirst(let samples): try appendSilence(samples)
        case .skipFirst(let samples): overlap = samples
        }
        guard !audioDone else { return }
        try fifo.append(block, skipping: overlap)
        if origin == nil {
            guard !setup.hasVideo else {
                // Audio from before the first picture: keep at most two seconds of it until the picture comes.
                let excess = fifo.count - 2 * setup.preset.audio.sampleRate
                if excess > 0 {
                    fifo.drain(excess)
                    audio.queueStart! += Int64(excess)
                }
                return
            }
            origin = Timestamp(value: audio.queueStart!, timeBase: audioTimeBase)
        }
        try encodeQueuedAudio(final: false)
    }

    /// Queues `count` samples of silence, encoding as it goes once the timeline has its origin (so a long
    /// hole in a file costs no memory).
    func appendSilence(_ count: Int64) throws {
        guard let fifo = audioFIFO else { return }
        var remaining = count
        while remaining > 0 && !audioDone {
            let chunk = Int(min(remaining, Int64(setup.preset.audio.sampleRate)))
            try fifo.appendSilence(chunk)
            remaining -= Int64(chunk)
            if origin != nil { try encodeQueuedAudio(final: false) }
        }
    }

    /// Encodes whole AAC frames from the FIFO (and with `final`, the last partial one), from the session
    /// origin on and up to the duration limit, into the files in order: a file the video has left (its end
    /// is committed) takes audio up to its end, the last frame short, and its encoder is drained; the last
    /// file takes audio up to the planned boundary and waits there for the video (audio alone commits it).
    func encodeQueuedAudio(final: Bool) throws {
        guard let fifo = audioFIFO, let originSample, let queuedStart = audio.queueStart else { return }
        if queuedStart < originSample {
            let trim = Int(min(originSample - queuedStart, Int64(fifo.count)))
            fifo.drain(trim)
            audio.queueStart = queuedStart + Int64(trim)
        }
        guard setup.writesFile else { return try encodeAudioWithoutFile(final: final, originSample: originSample) }
        while !audioDone, let segment = segments.audioFile {
            let position = audio.queueStart! - originSample
            if segment.end == nil, let planned = nextBoundary, !setup.hasVideo, position + Int64(fifo.count) >= planned.sample {
                try commitBoundary()
                continue
            }
            let wall = segment.end?.sample ?? nextBoundary?.sample
            try encodeAudio(into: segment, until: wall, closes: segment.end != nil, final: final, originSample: originSample)
            guard let end = segment.end, audio.queueStart! - originSample >= end.sample else { break }
            try endAudio(of: segment)
            try closeEndedSegments()
        }
    }

    /// Encodes AAC frames from the FIFO into one file, up to `wall` (a segment boundary, exclusive) and the
    /// duration limit. Only the frame that `closes` the file's audio at the wall, or the `final` one, is short.
    func encodeAudio(into segment: MovieSegment, until wall: Int64?, closes: Bool, final: Bool,
                             originSample: Int64) throws {
        guard let fifo = audioFIFO, segment.audioEncoder != nil || segment.audioFollower != nil,
              var fifoStart = audio.queueStart else { return }
        defer { audio.queueStart = fifoStart }
        let frameSize = segment.audioFrameSize
        let durationLimit = setup.limits.maxDuration.map { Int64(($0 * Double(setup.preset.audio.sampleRate)).rounded()) }
        let limit = [durationLimit, audio.endCap, totalSizeEnd?.sample].compactMap { $0 }.min()
        let waitPoint = final ? nil : audioWaitPoint(originSample: originSample)
        if segment.audioEncoder != nil, let preroll, segment.index > 1, segment.audioSamplesEncoded == 0,
           preroll.count == frameSize, fifo.count > 0 {
            try segment.encodeAudio { frames in
                _ = try preroll.read(into: frames, sampleCount: frameSize)
                for frame in frames { frame.pts = -Int64(frameSize) }
            }
        }
        frames: while !audioDone {
            let position = fifoStart - originSample
            let count: Int
            switch AudioTrack.nextFrame(position: position, frameSize: frameSize, queued: fifo.count, limit: limit,
                                        wall: wall, closes: closes, waitPoint: waitPoint, final: final) {
            case .limitReached:
                audioDone = true
                break frames
            case .wait: break frames
            case .encode(let samples): count = samples
            }
            if segment.audioEncoder != nil {
                try segment.encodeAudio { frames in
                    _ = try fifo.read(into: frames, sampleCount: count)
                    for frame in frames { frame.pts = position - segment.start.sample }
                    sendLive(samples: frames[0], at: position)
                    if let preroll {
                        try preroll.append(frames)
                        if preroll.count > frameSize { preroll.drain(preroll.count - frameSize) }
                    }
                }
            } else {
                fifo.drain(count)  // the owner of the shared encoders encoded these samples
            }
            fifoStart += Int64(count)
            audio.samplesEncoded += Int64(count)
            segment.audioSamplesEncoded += Int64(count)
            if let limit, position + Int64(count) >= limit { audioDone = true }
            if count < frameSize { break }  // a short frame is the last one the encoder takes
        }
        try collectAudio(of: segment, final: false)
        // Without video the audio is what fills a file: its size plans the cut at the next sample.
        if !setup.hasVideo, let cut = sizeCut, nextBoundary == nil, segment === segments.current,
           cut.mustCut(projected: segment.writer.projectedFileSize,
                       audioFrameBytes: Double(setup.preset.audio.bitRate) / 8 * Double(frameSize) / Double(setup.preset.audio.sampleRate)) {
            nextBoundary = SegmentBoundaries.Boundary(slot: 0, sample: fifoStart - originSample)
        }
    }

    /// Writes the segment's AAC packets encoded so far (`final`: all of them, its encoder drained) to its file;
    /// the owner of shared encoders publishes them for its followers, a follower takes the owner's.
    func collectAudio(of segment: MovieSegment, final: Bool) throws {
        if let (shared, index) = segment.audioFollower {
            for published in try shared.takeAudio(segment: segment.index, follower: index, waitForEnd: final) {
                try sharedAudioPacket.reference(published)
                sendLive(audio: sharedAudioPacket, of: segment)
                try write(sharedAudioPacket, stream: audioStream, to: segment)
            }
            return
        }
        guard let encoder = segment.audioEncoder else { return }
        // Separate tracks: each encoder's packets go to its own stream; live streams take the first track's.
        for (track, other) in segment.audioEncoders.enumerated().dropFirst() {
            try other.collectPackets { packet in try write(packet, stream: audioStream + track, to: segment) }
        }
        guard case .owner(let shared)? = setup.sharedVideo else {
            return try encoder.collectPackets { packet in
                sendLive(audio: packet, of: segment)
                try write(packet, stream: audioStream, to: segment)
            }
        }
        var published: [Packet] = []
        defer {
            spareSharedPackets += shared.publishAudio(segment: segment.index, published)
            if final { shared.endedAudio(segment: segment.index) }
        }
        try encoder.collectPackets { packet in
            let copy = spareSharedPackets.popLast() ?? Packet()
            try copy.reference(packet)
            published.append(copy)
            sendLive(audio: packet, of: segment)
            try write(packet, stream: audioStream, to: segment)
        }
    }
}
