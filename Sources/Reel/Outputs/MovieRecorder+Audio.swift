import FFmpegCore
import FoundationEssentials
import Glibc

/// A movie's sound: resampling, the queue aligned to the video's timeline, silence for holes, and its AAC
/// encoders (one per track for all its files: MovieRecorder+AudioPackets routes their packets).
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
    /// origin on and up to the duration limit, with the movie's one encoder per track: its frames run on across
    /// the files' boundaries, and its packets go to the files whose spans they cover (collectAudio). The audio
    /// waits at a boundary that is planned but not committed (the video commits it; audio alone commits it
    /// once it has the boundary's samples).
    func encodeQueuedAudio(final: Bool) throws {
        guard let fifo = audioFIFO, let originSample, let queuedStart = audio.queueStart else { return }
        if queuedStart < originSample {
            let trim = Int(min(originSample - queuedStart, Int64(fifo.count)))
            fifo.drain(trim)
            audio.queueStart = queuedStart + Int64(trim)
        }
        guard setup.writesFile else { return try encodeAudioWithoutFile(final: final, originSample: originSample) }
        if !audioDone, !setup.hasVideo, segments.current?.end == nil, let planned = nextBoundary,
           audio.queueStart! - originSample + Int64(fifo.count) >= planned.sample {
            try commitBoundary()  // which opens the next file (and encodes on from there)
        }
        try encodeAudioFrames(final: final, originSample: originSample)
        try closeEndedSegments()
    }

    /// Encodes AAC frames from the FIFO up to the duration limit, the pictures sent so far and the planned
    /// boundary. Only the frame at the limit, or the `final` one, is short.
    private func encodeAudioFrames(final: Bool, originSample: Int64) throws {
        guard let fifo = audioFIFO, !audioEncoders.isEmpty || followsSharedAudio, var fifoStart = audio.queueStart else { return }
        defer { audio.queueStart = fifoStart }
        let frameSize = audioFrameSize
        let durationLimit = setup.limits.maxDuration.map { Int64(($0 * Double(setup.preset.audio.sampleRate)).rounded()) }
        let limit = [durationLimit, audio.endCap, totalSizeEnd?.sample].compactMap { $0 }.min()
        let waitPoint = final ? nil : audioWaitPoint(originSample: originSample)
        let wall = segments.current?.end == nil ? nextBoundary?.sample : nil
        frames: while !audioDone {
            let position = fifoStart - originSample
            let count: Int
            switch AudioTrack.nextFrame(position: position, frameSize: frameSize, queued: fifo.count, limit: limit,
                                        wall: wall, waitPoint: waitPoint, final: final) {
            case .limitReached:
                audioDone = true
                break frames
            case .wait: break frames
            case .encode(let samples): count = samples
            }
            if audioEncoders.isEmpty {
                // The owner of the shared AAC encoder encoded these samples; the streams' own encoder takes them.
                if liveAudio != nil {
                    let frame = try liveSamplesFrame(frameSize: frameSize)
                    _ = try fifo.read(into: frame, sampleCount: count)
                    sendLive(samples: frame, at: position)
                } else {
                    fifo.drain(count)
                }
            } else {
                try encodeAudioFrame { frames in
                    _ = try fifo.read(into: frames, sampleCount: count)
                    for frame in frames { frame.pts = position }
                    sendLive(samples: frames[0], at: position)
                }
            }
            fifoStart += Int64(count)
            audio.samplesEncoded += Int64(count)
            if let limit, position + Int64(count) >= limit { audioDone = true }
            if count < frameSize { break }  // a short frame is the last one the encoder takes
        }
        try collectAudio(final: false)
        // Without video the audio is what fills a file: its size plans the cut at the next sample.
        if !setup.hasVideo, let cut = sizeCut, nextBoundary == nil, let segment = segments.current,
           cut.mustCut(projected: segment.writer.projectedFileSize,
                       audioFrameBytes: Double(setup.preset.audio.bitRate) / 8 * Double(frameSize) / Double(setup.preset.audio.sampleRate)) {
            nextBoundary = SegmentBoundaries.Boundary(slot: 0, sample: fifoStart - originSample)
        }
    }

    /// Lets `fill` write the next frame of every track at once (one frame per encoder, in track order), then
    /// queues each to its encoder.
    private func encodeAudioFrame(_ fill: ([Frame]) throws -> Void) throws {
        func take(_ next: Int, _ frames: [Frame]) throws {
            guard next < audioEncoders.count else { return try fill(frames) }
            try audioEncoders[next].encode { frame in try take(next + 1, frames + [frame]) }
        }
        try take(0, [])
    }
}
