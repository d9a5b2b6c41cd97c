import FFmpegCore
import FoundationEssentials
import Glibc

/// A movie's pictures: the constant frame rate's slots and the held picture.
extension MovieRecorder {
    // MARK: video

    /// Takes a picture (and releases its slot once shown): the held picture is shown in the output slots the
    /// cadence gives it, and this one is held in its place.
    func encodeVideo(_ item: CapturedItem) throws {
        // A movie added at a size of its own starts with the first picture made at that size (the ones already
        // captured when it was added have only the sizes of the movies before it).
        guard videoEncoder != nil, !videoDone, item.hasPicture(setup.rendition) else {
            buffer.release(.video, item.slot)
            return
        }
        if origin == nil { origin = item.time }
        let slots = cadence.arrive(time: VideoCadence.frames(of: item.time - origin!, rate: setup.preset.videoFrameRate))
        let previous = heldPicture
        heldPicture = item
        if let previous {
            defer { buffer.release(.video, previous.slot) }
            try show(previous.picture(setup.rendition), in: slots)
        }
    }

    /// Shows the held picture for as long as the cadence says (at the end of the input, or at a stop), then
    /// releases it.
    func showHeldPicture(atLeastUntil minimumEnd: Int64 = 0) throws {
        guard let held = heldPicture else { return }
        heldPicture = nil
        defer { buffer.release(.video, held.slot) }
        try show(held.picture(setup.rendition), in: cadence.finish(atLeast: minimumEnd))
    }

    func releaseHeldPicture() {
        if let held = heldPicture { buffer.release(.video, held.slot) }
        heldPicture = nil
    }

    /// Encodes one picture for each slot (a repeat after the first), up to the duration limit.
    func show(_ picture: Frame, in slots: Range<Int64>) throws {
        guard let encoder = videoEncoder, !slots.isEmpty else { return }
        // A limit reached while writing ends the showing; a stop already under way (the last picture at the
        // end) does not.
        let reasonBefore = stopReason
        try videoInput.reference(picture)
        defer { videoInput.unref() }
        for slot in slots {
            if let limit = videoSlotLimit, slot >= limit {
                videoDone = true
                releaseHeldPicture()
                return
            }
            if let boundary = nextBoundary, slot >= boundary.slot { try commitBoundary() }
            if let failAt = injectedFailure, videoFrames >= failAt {
                throw FFmpegError(call: "avcodec_send_frame", message: "an encoder failure injected by a test")
            }
            videoInput.pts = slot
            // Each segment and each fragment starts with a keyframe: one comes at a segment's first picture and
            // at every multiple of the fragment interval from there.
            let segmentStart = segments.last?.start.slot ?? 0
            let startsSegment = slot == segmentStart && videoFrames > 0
            videoInput.forcesKeyframe = keyframes.forcesKeyframe(at: Double(slot - segmentStart) * videoTimeBase.doubleValue,
                                                                 isFirst: videoFrames == 0 || startsSegment)
                || startsSegment || (keyframeAtResume && videoFrames > 0)
            keyframeAtResume = false
            nextSlotToSend = slot + 1
            picturesSent += 1
            try send(videoInput, to: encoder, stream: videoStream)
            if slot > slots.lowerBound { duplicatedFrames += 1 }
            videoFrames += 1
            if stopReason != reasonBefore { return }
        }
    }

    /// The first frame slot not kept under the duration limit: every kept frame ends by the limit, so no
    /// track runs past it (5 s at 30 fps: 150 frames; 1.01 s: 30 frames, 1.0 s). A limit shorter than one
    /// frame still keeps the first picture: a movie needs one.
    /// The recording's end for its total size (totalSizeEnd) is one too.
    var videoSlotLimit: Int64? {
        let duration = setup.limits.maxDuration.map {
            max(1, Int64(($0 * setup.preset.videoFrameRate.doubleValue + 1e-9).rounded(.down)))
        }
        return [duration, totalSizeEnd?.slot].compactMap { $0 }.min()
    }
}
