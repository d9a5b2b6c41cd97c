import FFmpegCore

/// Turns source pictures at any times into a constant-rate track at the preset's rate, as ffmpeg's fps
/// filter does: output frame n (shown from n / rate) is the source picture on screen then, the last one
/// whose time, rounded to the nearest output frame, is at or before n. A slower source has pictures shown
/// again (24 → 30 repeats one in four), a faster one has pictures left out evenly (60 → 30 keeps every other
/// one), and slots before the first picture show the first picture, so the track has no holes.
///
/// Pure bookkeeping in slots (output frame numbers): the engine holds the latest picture and, when the next
/// one arrives, shows the held one in the slots `arrive` returns.
struct VideoCadence {
    /// The output frame a picture at `time` (from the movie's start) falls to: the nearest, halves rounded up
    /// as ffmpeg's fps filter does. Times reach here in microseconds, so a time meant to be exactly halfway
    /// (a 60 fps picture between two 30 fps frames) can be a microsecond short: up to 1/10,000 of a frame
    /// below a half still counts as the half.
    static func slot(of time: Timestamp, rate: Rational) -> Int64 { slot(ofFrames: frames(of: time, rate: rate)) }

    /// The first output slot not yet given a picture.
    private(set) var nextSlot: Int64 = 0
    /// The held picture's slot and time (in output frames, unrounded).
    private var held: (slot: Int64, time: Double)? = nil
    /// Output frames between recent pictures (the last eight): the shortest is how long the last picture
    /// lasts at the end: a source's frame interval, not a stall that came before its last picture.
    private var recentIntervals: [Double] = []
    private var lastInterval: Double { recentIntervals.min() ?? 1 }

    /// A picture at `time` output frames from the movie's start arrives. Returns the slots the previously
    /// held picture is shown in (empty when it is left out, or when there was none); the new picture is
    /// held from now on.
    mutating func arrive(time: Double) -> Range<Int64> {
        let slot = VideoCadence.slot(ofFrames: time)
        defer { held = (slot, time) }
        guard let previous = held else { return nextSlot..<nextSlot }
        if time > previous.time {
            if recentIntervals.count == 8 { recentIntervals.removeFirst() }
            recentIntervals.append(time - previous.time)
        }
        let start = nextSlot
        nextSlot = max(nextSlot, slot)
        return start..<nextSlot
    }

    /// A pause: the held picture has been shown up to the pause (by `arrive` at the pause instant) and is
    /// let go; the first picture after the resume is shown from the next slot on, so the track has no hole.
    mutating func letGoOfHeldPicture() { held = nil }

    /// The source ended: the slots the held picture is shown in, up to where it ends (it lasts as long as
    /// the interval before it). A picture that ends before its slot is left out, as in ffmpeg's fps filter,
    /// unless no picture has been shown at all.
    /// `atLeast` extends the held picture to that slot (a stop: the video lasts until the audio ends).
    mutating func finish(atLeast minimumEnd: Int64 = 0) -> Range<Int64> {
        guard let last = held else { return nextSlot..<nextSlot }
        held = nil
        let start = nextSlot
        let end = VideoCadence.slot(ofFrames: last.time + lastInterval)
        nextSlot = max(nextSlot == 0 ? 1 : nextSlot, end, minimumEnd)
        return start..<nextSlot
    }

    /// The nearest output frame to a time in output frames, halves up (see `slot(of:rate:)`).
    static func slot(ofFrames frames: Double) -> Int64 {
        // Clamped: times come from files, and no time is worth a crash.
        guard !frames.isNaN else { return 0 }
        return Int64(max(-4e18, min(4e18, (frames + 0.5 + 1e-4).rounded(.down))))
    }

    /// A time as output frames from the movie's start, at `rate`.
    static func frames(of time: Timestamp, rate: Rational) -> Double { time.seconds * rate.doubleValue }
}
