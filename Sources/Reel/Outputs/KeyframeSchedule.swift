/// When a movie forces a keyframe: each fragment must start with one, so the first picture at or after
/// every multiple of the fragment interval is made a keyframe (the movie's very first picture is one anyway).
/// Pure bookkeeping, unit-tested in KeyframeScheduleTests.
struct KeyframeSchedule {
    /// Seconds between fragments; 0 forces none.
    let interval: Double
    private var next: Double = 0

    init(interval: Double) { self.interval = interval }

    /// Whether the picture shown at `time` seconds (in increasing order) must be a keyframe.
    /// `isFirst`: the movie's first picture, which the encoder makes a keyframe by itself.
    mutating func forcesKeyframe(at time: Double, isFirst: Bool) -> Bool {
        guard interval > 0, time >= next - 1e-9 else { return false }
        next = ((time + 1e-9) / interval).rounded(.down) * interval + interval
        return !isFirst
    }
}
