/// Which of a shared encoder's pictures one movie holds, and where they fall on the movie's own timeline.
/// The encoder (SharedVideoEncoder) runs on the session's timeline from its first picture and never pauses;
/// a movie that takes its packets holds the slots from its `start` on, less its paused stretches (`gaps`,
/// from the slot its pause began at up to the one it resumed at), up to its `end` (a stop). A movie with sound
/// joins at its first sound (its start is unknown until then; pauses and a stop asked before fall at it at
/// the earliest). Every edge is a
/// slot the encoder was asked to make a keyframe (EncoderSubscription), so with closed GOPs each window's
/// pictures decode on their own and the movie's timeline moves on by whole frames at a resume, as its sound does.
/// Pure bookkeeping, unit-tested in EncoderWindowsTests.
struct EncoderWindows: Equatable {
    /// The encoder's slot of the movie's first picture; nil until the movie joined.
    private(set) var start: Int64?
    /// Paused stretches in the encoder's slots, in order: `to` is nil while the movie is paused.
    private(set) var gaps: [(from: Int64, to: Int64?)] = []
    /// The encoder's slot the movie ends before (a stop), once asked.
    private(set) var end: Int64?

    init(start: Int64? = nil) { self.start = start }

    /// The movie joins at slot `slot` (once): what was asked before falls there at the earliest.
    mutating func join(at slot: Int64) {
        guard start == nil else { return }
        start = slot
        for index in gaps.indices {
            gaps[index].from = max(gaps[index].from, slot)
            gaps[index].to = gaps[index].to.map { max($0, gaps[index].from) }
        }
        end = end.map { max($0, slot) }
    }

    static func == (left: EncoderWindows, right: EncoderWindows) -> Bool {
        left.start == right.start && left.end == right.end
            && left.gaps.map(\.from) == right.gaps.map(\.from) && left.gaps.map(\.to) == right.gaps.map(\.to)
    }

    var isPaused: Bool { gaps.last.map { $0.to == nil } ?? false }

    /// The slot the movie's pause began at, while it is paused.
    var pausedFrom: Int64? { isPaused ? gaps.last?.from : nil }

    /// A pause from slot `slot` on (nothing while already paused). One that begins before the movie's first
    /// picture holds it back until the resume.
    mutating func pause(at slot: Int64) {
        guard !isPaused else { return }
        gaps.append((max(slot, start ?? slot), nil))
    }

    /// The resume at slot `slot` (the first picture held again; nothing unless paused).
    mutating func resume(at slot: Int64) {
        guard isPaused else { return }
        gaps[gaps.count - 1].to = max(slot, gaps[gaps.count - 1].from)
    }

    /// The movie ends before slot `slot` (the earliest end asked for stands).
    mutating func stop(at slot: Int64) { end = min(end ?? slot, max(slot, start ?? slot)) }

    /// The movie's slot of the encoder's slot `slot`, or nil when the movie does not hold it (before its start,
    /// in a pause, from its end on).
    func movieSlot(of slot: Int64) -> Int64? {
        guard let start, slot >= start, end.map({ slot < $0 }) ?? true else { return nil }
        var skipped: Int64 = 0
        for gap in gaps {
            guard slot >= gap.from else { break }
            guard let to = gap.to, slot >= to else { return nil }
            skipped += to - gap.from
        }
        return slot - start - skipped
    }

    /// The movie's slot of the latest of the encoder's slots up to `slot` that it holds: the last before a
    /// pause or its end when `slot` lies there; nil before its start.
    func lastMovieSlot(atOrBefore slot: Int64) -> Int64? {
        guard let start, slot >= start else { return nil }
        var latest = min(slot, (end ?? slot + 1) - 1)
        for gap in gaps.reversed() where latest >= gap.from && (gap.to.map { latest < $0 } ?? true) { latest = gap.from - 1 }
        return latest < start ? nil : movieSlot(of: latest)
    }

    /// How many slots the movie holds before the encoder's slot `slot`: its position there on its own
    /// timeline (where a stop there ends it, a pause there leaves it, a resume there takes it on).
    func slotsHeld(before slot: Int64) -> Int64 { (lastMovieSlot(atOrBefore: slot - 1) ?? -1) + 1 }

    /// The encoder's slot of the movie's slot `slot` on its timeline as it goes on now (after every gap so
    /// far: where a limit of the movie's own timeline falls on the encoder's); nil until the movie joined.
    func encoderSlot(ofMovieSlot slot: Int64) -> Int64? {
        guard let start else { return nil }
        return start + slot + gaps.reduce(0) { $0 + (($1.to ?? $1.from) - $1.from) }
    }
}
