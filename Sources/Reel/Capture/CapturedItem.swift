import FFmpegCore

/// The pooled frames of one captured picture or block of samples. A picture is held in every rendition the
/// outputs asked for (`frames[i]` is rendition i, see PictureRenditions); a block of samples in one frame per
/// sound track (`frames[i]` is track i: several only when inputs are recorded as separate tracks).
/// Outputs share a slot without copying it: the CaptureBuffer counts who holds it and takes it back into
/// its pool when the last holder releases it.
final class CaptureSlot: @unchecked Sendable {
    /// Written by the reader that filled the slot, before it is queued; read-only while outputs hold it.
    var frames: [Frame]
    /// How many holders (the session, outputs, a photo) have it; guarded by the CaptureBuffer's lock.
    var holders = 0

    init(frames: [Frame]) { self.frames = frames }
}

/// A captured picture or block of samples on its way from a reader thread to the outputs.
struct CapturedItem: @unchecked Sendable {
    let slot: CaptureSlot
    /// Session time of the item's start, in the reader's clock units (microseconds).
    let time: Timestamp
    /// A block of samples: the sound's levels measured on the source's samples since the block before, when
    /// an update fell due (see AudioFrameSink's meter); it travels with the block, so no lock is added.
    var levels: AudioLevels? = nil

    /// The picture at the first rendition, or the block of samples (of the first track).
    var frame: Frame { slot.frames[0] }

    /// A block of samples, one frame per track.
    var tracks: [Frame] { slot.frames }

    /// The picture at a rendition the outputs registered.
    func picture(_ rendition: Int) -> Frame { slot.frames[rendition] }

    /// Whether the picture was made at `rendition`: one captured before a movie of a new size was added
    /// has only the renditions registered then.
    func hasPicture(_ rendition: Int) -> Bool { rendition < slot.frames.count }
}
