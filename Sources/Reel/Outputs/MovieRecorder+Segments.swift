import FFmpegCore
import FoundationEssentials
import Glibc

/// A movie's files (segments: where each opens and ends, their limits, loop recording) and its pauses.
extension MovieRecorder {
    // MARK: segments

    /// Opens the next file, starting at `boundary`, and plans the boundary after it.
    func openSegment(at boundary: SegmentBoundaries.Boundary) throws {
        let index = (segments.current?.index ?? finishedSegments.last?.result.index ?? 0) + 1
        // Every name the pattern makes was checked before the recording began (OutputPlan); one that a
        // {date}/{time} field makes anew, or that another program took since, is not replaced: the segment
        // gets the next free name beside it ("cam-…-14-05-09 (2).mov"), which its result and events report.
        let path = naming.map { naming in
            SegmentNaming.freeName(for: naming.path(index: index, date: Date())) { candidate in
                setup.overwrite || access(candidate, F_OK) != 0
            }
        } ?? setup.outputPath
        let writingPath = setup.temporaryPath == setup.outputPath ? path
            : (naming == nil ? setup.temporaryPath : PartialName.path(for: path))
        let limits = segmentLimits(otherOpen: segments.open)
        let segment = try MovieSegment(index: index, outputPath: path, writingPath: writingPath, start: boundary, setup: setup,
                                       videoEncoder: videoEncoder, audioEncoders: audioEncoders.map(\.encoder), limits: limits)
        segments.add(segment)
        video.startSegment()
        if let duration = setup.segmentation?.duration {
            nextBoundary = setup.hasVideo ? boundaries.durationBoundary(index: index, seconds: duration)
                                          : boundaries.audioOnlyBoundary(index: index, seconds: duration)
        } else {
            nextBoundary = nil
        }
        if naming != nil { segmentEvents(.segmentStarted(output: path, index: index)) }
    }

    /// A file's limits: the movie's, with the size what the recording's total size leaves after the files
    /// finished and the others still open. The segment size is not one of them: it steers the cut
    /// (SegmentSizeCut), and a file never refuses what the encoder already holds.
    func segmentLimits(otherOpen: [MovieSegment]) -> RecordingLimits {
        var limits = setup.limits
        guard let segmentation = setup.segmentation else { return limits }
        if segmentation.deletesOldestForFreeSpace { limits.minFreeDiskSpace = max(limits.minFreeDiskSpace, 0) }
        let used = finishedSegments.reduce(Int64(0)) { $0 + $1.result.bytes } + otherOpen.reduce(Int64(0)) { $0 + $1.writer.projectedFileSize }
        limits.maxFileSize = setup.limits.maxFileSize.map { max(0, $0 - used) }
        return limits
    }

    /// The video (or, without video, the audio) reached the planned boundary: the next file begins there, the
    /// picture at the boundary its first (a keyframe). The current file takes the audio up to the boundary
    /// as it comes, then its AAC encoder is drained and it is finalized once its last pictures are out.
    func commitBoundary() throws {
        guard let boundary = nextBoundary, let current = segments.current else { return }
        if let left = segmentLimits(otherOpen: segments.open).maxFileSize, left < newFileStartBytes {
            // What the recording's total size leaves would not hold a file's start: the recording ends at the
            // boundary instead of opening a file that could hold nothing; the file keeps what it was planned
            // to hold, as at a duration limit, and the recording reports its size limit.
            nextBoundary = nil
            totalSizeEnd = boundary
            return
        }
        current.end = boundary
        if !setup.hasVideo { current.videoEnded = true }
        try openSegment(at: boundary)
        if origin != nil { try encodeQueuedAudio(final: false) }
        try closeEndedSegments()
    }

    /// The least a new file needs of the recording's total size: its header and index, and its first
    /// picture (a keyframe; twice the last, against a change of scene) with the audio over it.
    var newFileStartBytes: Int64 { 2 * Int64(lastKeyframeBytes) + 64 * 1024 }

    /// Finalizes the files, other than the last, that will get no more packets.
    func closeEndedSegments() throws {
        for segment in segments.takeFinished() { finishSegment(segment, stopReason: nil) }
    }

    /// Finalizes a file and reports it; a segment then counts towards loop recording's retention.
    func finishSegment(_ segment: MovieSegment, stopReason: StopReason?) {
        var outcome = segment.finalize(stopReason: stopReason, errorMessage: stopReason == nil ? nil : errorMessage,
                                       videoStream: videoStream, audioStream: audioStream,
                                       sampleRate: setup.preset.audio.sampleRate)
        outcome.result.start = setup.hasVideo ? Double(segment.start.slot) * videoTimeBase.doubleValue
                                              : Double(segment.start.sample) / Double(setup.preset.audio.sampleRate)
        if let size = setup.segmentation?.size, outcome.result.bytes > size, naming != nil {
            outcome.result.bytesOverSize = outcome.result.bytes - size
        }
        finishedSegments.append(outcome)
        guard naming != nil else { return }
        segmentEvents(.segmentFinished(outcome.result))
        if outcome.usable {
            for deleted in retention.finished(result: finishedSegments.count - 1, path: outcome.result.output) {
                finishedSegments[deleted].result.deleted = true
            }
        }
        if stopReason == nil, outcome.stopReason == .failed || outcome.stopReason == .diskFull {
            // A segment that could not be finalized ends the recording: the next would fare no better.
            self.stopReason = outcome.stopReason
            errorMessage = outcome.errorMessage
        }
        // What the recording's total size leaves for the files still open.
        if setup.limits.maxFileSize != nil {
            for (position, open) in segments.open.enumerated() {
                var others = segments.open
                others.remove(at: position)
                open.writer.setMaxFileSize(segmentLimits(otherOpen: others).maxFileSize)
            }
        }
    }

    /// Loop recording: before free space would fall under the floor, the oldest finished segments go.
    func makeRoom(for bytes: Int, in segment: MovieSegment) {
        guard setup.segmentation?.deletesOldestForFreeSpace == true, setup.limits.minFreeDiskSpace > 0 else { return }
        let margin = Int64(max(1 << 20, 4 * bytes))
        while segment.writer.freeSpaceHeadroom() < margin, let deleted = retention.deleteOldest() {
            finishedSegments[deleted].result.deleted = true
            for open in segments.open { open.writer.refreshDiskSpace() }
        }
    }

    // MARK: pause

    /// Whether an item falls in a paused stretch; true while paused (the item is not recorded). Pauses are
    /// requested on the session's clock (PauseRequests), so they cut the same stretch from the pictures and
    /// the sound whatever order their items are taken in, and however late. Entering a pause shows the held
    /// picture up to the pause instant; leaving it moves the movie's origin (and the audio queue's start) by
    /// the paused time, so the next item continues the timeline, with a keyframe.
    func pausing(at item: CapturedItem) throws -> Bool {
        guard origin != nil else { return false }  // before the first picture there is nothing to pause
        let time = item.time.rescaled(to: sessionTimeBase).value
        while let interval = pauses.interval(at: pauseCursor, itemTime: time, paused: pausedAt != nil) {
            if pausedAt == nil {
                guard time >= interval.start else { return false }
                let origin = self.origin!
                let instant = max(Timestamp(value: interval.start, timeBase: sessionTimeBase), origin)
                pausedAt = instant
                // A block of sound that began before the instant was queued whole: what it holds past the
                // instant is cut (the pictures stop there; the resume's sound follows on from it).
                if let fifo = audioFIFO, let queued = audio.queueStart {
                    let kept = instant.rescaled(to: audioTimeBase).value - queued
                    if kept >= 0 && kept < Int64(fifo.count) { try fifo.keepFirst(Int(kept)) }
                }
                // (A subscriber's pictures are its encoder's, cut at the same instant: EncoderWindows.)
                let slots = subscription == nil ? video.arrive(after: instant - origin) : 0..<0
                if let held = heldPicture {
                    heldPicture = nil
                    defer { buffer.release(.video, held.slot) }
                    try show(held.picture(setup.rendition), in: slots)
                }
                // The picture that came at the pause is not recorded: the first after the resume takes its place.
                video.pause()
            }
            guard let end = interval.end, time >= end else { return true }
            let gap = max(Timestamp(value: end, timeBase: sessionTimeBase), pausedAt!) - pausedAt!
            self.origin = self.origin! + gap
            if let start = audio.queueStart { audio.queueStart = start + gap.rescaled(to: audioTimeBase).value }
            pausedAt = nil
            if liveStreamsDated {
                // A subscriber resumes where its encoder's resume keyframe falls (its pictures may lag its sound).
                let windows = subscription?.current
                let resumed = windows.flatMap { windows in windows.gaps.last?.to.map { windows.slotsHeld(before: $0) } }
                redateLiveStreams(from: setup.hasVideo ? Double(resumed ?? video.nextSlotToSend) * videoTimeBase.doubleValue
                                                       : Double(audio.samplesEncoded) * audioTimeBase.doubleValue)
            }
            video.resume()
            pauseCursor += 1
        }
        return false
    }
}
