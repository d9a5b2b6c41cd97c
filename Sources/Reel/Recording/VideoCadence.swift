/// Turns source pictures at any times into a constant-rate track at the preset's rate, as ffmpeg's fps
/// filter does: output frame n (shown from n / rate) is the source picture on screen then, the last one
/// whose time, rounded to the nearest output frame, is at or before n. A slower source has pictures shown
/// again (24 → 30 repeats one in four), a faster one has pictures left out evenly (60 → 30 keeps every other
/// one), and slots before the first picture show the first picture, so the track has no holes.
///
/// Pure bookkeeping in slots (output frame numbers): the engine holds the latest picture and, when the next
/// one arrives, shows the held one in the slots `arrive` returns.
struct VideoCadence {
    /// The first output slot not yet given a picture.
    private(set) var nextSlot: Int64 = 0
    private var heldSlot: Int64? = nil
    /// Slots between the last two pictures: how long the last one is shown at the end.
    private var lastStep: Int64 = 1

    /// A picture falling to `slot` arrives. Returns the slots the previously held picture is shown in
    /// (empty when it is left out, or when there was none); the new picture is held from now on.
    mutating func arrive(slot: Int64) -> Range<Int64> {
        defer { heldSlot = slot }
        guard let held = heldSlot else { return nextSlot..<nextSlot }
        if slot > held { lastStep = slot - held }
        let start = nextSlot
        nextSlot = max(nextSlot, slot)
        return start..<nextSlot
    }

    /// The source ended: the slots the held picture is shown in, as long as the pictures before it lasted
    /// (at least one slot).
    mutating func finish() -> Range<Int64> {
        guard let held = heldSlot else { return nextSlot..<nextSlot }
        heldSlot = nil
        let start = nextSlot
        nextSlot = max(nextSlot + 1, held + lastStep)
        return start..<nextSlot
    }
}
