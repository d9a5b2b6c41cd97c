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
        let slots = video.arrive(after: item.time - origin!)
        newestPicture.store(slots.upperBound, ordering: .releasing)
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
        try show(held.picture(setup.rendition), in: video.finish(atLeast: minimumEnd))
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
            try failIfInjected()
            videoInput.pts = slot
            videoInput.forcesKeyframe = video.send(slot: slot, segmentStart: segments.current?.start.slot ?? 0,
                                                   isRepeat: slot > slots.lowerBound)
            try send(videoInput, to: encoder, stream: videoStream)
            if stopReason != reasonBefore { return }
        }
    }

    /// The first frame slot not kept (VideoTrack.slotLimit under the duration limit, or the recording's end
    /// for its total size, totalSizeEnd).
    var videoSlotLimit: Int64? {
        [setup.limits.maxDuration.map { video.slotLimit(seconds: $0) }, totalSizeEnd?.slot].compactMap { $0 }.min()
    }
}
