/// The pictures of one input waiting to be composed, by time (µs): the composed picture at time t shows the
/// input's last picture shown by t. Unpaced inputs (a file, lavfi with realtime=0) are on their own timelines
/// (from their first picture); t's picture is known once a later picture is waiting or the input has ended, and
/// a few pictures wait at most, so a fast input waits for the slow ones (as pooled slots pace a single input).
/// Live inputs are on the monotonic clock (their capture times) and never wait: the oldest goes. Generic over
/// the picture so the rule is tested without FFmpeg.
struct LayerQueue<Picture> {
    /// Pictures read ahead of the composition (a reader with this many waiting waits itself).
    static var capacity: Int { 3 }

    private(set) var waiting: [(time: Int64, picture: Picture)] = []
    /// The picture shown at the last time `advance` reached.
    private(set) var current: (time: Int64, picture: Picture)?
    /// Changes whenever `current` does (how the painter knows to scale again).
    private(set) var currentSerial = 0
    private(set) var ended = false
    /// Where the input's last picture stops being shown (its time plus its duration).
    private(set) var endTime: Int64 = 0
    private var lastTime: Int64 = .min

    var isFull: Bool { waiting.count >= LayerQueue.capacity }

    /// A picture read, shown from `time` for `duration` µs. Times that go back are held at the last one.
    mutating func push(_ picture: Picture, time: Int64, duration: Int64) {
        let time = max(time, lastTime)
        lastTime = time
        waiting.append((time, picture))
        endTime = max(endTime, time + max(duration, 1))
    }

    /// A live input's picture: never waits; when full, the oldest waiting picture goes (a later one is shown
    /// instead at any time it would have been).
    mutating func pushDroppingOldest(_ picture: Picture, time: Int64, duration: Int64) {
        if isFull { waiting.removeFirst() }
        push(picture, time: time, duration: duration)
    }

    mutating func end() { ended = true }

    /// Moves on to the picture shown at `time`; true once that is decided (a later picture waits, or the input
    /// ended). Pictures passed over are dropped.
    mutating func advance(to time: Int64) -> Bool {
        while let first = waiting.first, first.time <= time {
            current = first
            currentSerial += 1
            waiting.removeFirst()
        }
        return ended || !waiting.isEmpty
    }

    /// Nothing more to show after `time`: ended, nothing waiting, and its last picture's time is over.
    func isOver(at time: Int64) -> Bool { ended && waiting.isEmpty && time >= endTime }
}
