import FFmpegCore
import SystemSupport

/// What the session hands one output: captured items in time order, then the end. Items are slots the output
/// holds (see CaptureSlot); the output releases each when done with it. The queue itself holds no frames of
/// its own: its length is bounded by the CaptureBuffer's pools, and for a live source by `pictureLimit`, past
/// which this output drops its oldest waiting picture (and counts it) without holding up the session or the
/// other outputs.
final class OutputQueue: @unchecked Sendable {
    enum Entry {
        case item(MediaType, CapturedItem)
        /// The session stopped (or its inputs ended) for this reason.
        case end(StopReason, message: String?)
        /// The shared encoder this output takes pictures from has new packets (SharedVideoEncoder).
        case encoded
    }

    private let condition = Condition()
    private var entries: [Entry] = []
    private var head = 0
    private var queuedPictures = 0
    private let pictureLimit: Int?
    private var limiting = false
    /// The output has ended: it takes nothing more (the session releases what it offers).
    private var closed = false
    private var droppedPictures = 0
    /// An `encoded` entry waits to be taken (one stands for any number of nudges).
    private var nudged = false
    /// The session time (microseconds) up to which items were offered: the newest item's start, or a block
    /// of samples' end.
    private var offeredUntil: Int64?

    /// `pictureLimit`: pictures this output may have waiting before it drops new ones (live sources); nil
    /// waits for every picture (files, unpaced sources: the pools then pace the readers).
    init(pictureLimit: Int?) {
        self.pictureLimit = pictureLimit
        entries.reserveCapacity(64)
    }

    /// The session time up to which this output was handed items (nil before the first): of unpaced inputs,
    /// a pause asked now leaves out what comes after it (EncoderSubscription.together).
    var handedUntil: Int64? { condition.withLock { offeredUntil } }

    /// The output is ready to encode: from now on a live source's pictures beyond the limit are dropped.
    /// (While its encoders open, pictures wait, bounded by the CaptureBuffer's pool.)
    func beginLimiting() { condition.withLock { limiting = true } }

    /// Queues an item. A live output that already has `pictureLimit` pictures waiting drops its oldest
    /// waiting picture for this one (the movie keeps up with the present and reaches its full duration; the
    /// dropped picture is counted) and returns it for the session to release. Returns false when the output
    /// has ended (the session releases the item itself).
    func offer(_ type: MediaType, _ item: CapturedItem, dropped: inout CapturedItem?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if closed { return false }
        if type == .video, limiting, let pictureLimit, queuedPictures >= pictureLimit,
           let oldest = entries[head...].firstIndex(where: { if case .item(.video, _) = $0 { return true } else { return false } }),
           case .item(_, let old) = entries[oldest] {
            entries.remove(at: oldest)
            droppedPictures += 1
            queuedPictures -= 1
            dropped = old
        }
        if type == .video { queuedPictures += 1 }
        var until = item.time.rescaled(to: sessionTimeBase).value
        if type == .audio, item.frame.sampleRate > 0 { until += Int64(item.frame.sampleCount) * 1_000_000 / Int64(item.frame.sampleRate) }
        offeredUntil = max(offeredUntil ?? until, until)
        entries.append(.item(type, item))
        condition.signal()
        return true
    }

    /// Asks the output to end once it has taken what is queued before it (a stop, or the session's end).
    func end(_ reason: StopReason, message: String?) {
        condition.lock()
        defer { condition.unlock() }
        if closed { return }
        entries.append(.end(reason, message: message))
        condition.signal()
    }

    /// Tells the output its shared encoder has new packets (once, until it takes the entry).
    func nudge() {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, !nudged else { return }
        nudged = true
        entries.append(.encoded)
        condition.signal()
    }

    /// The output has ended: later offers are refused, and the items still queued are returned for release.
    func close() -> [(MediaType, CapturedItem)] {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        let left = entries[head...].compactMap { entry -> (MediaType, CapturedItem)? in
            if case .item(let type, let item) = entry { return (type, item) }
            return nil
        }
        entries.removeAll()
        head = 0
        return left
    }

    /// The next entry, waiting for one.
    func take() -> Entry {
        condition.lock()
        defer { condition.unlock() }
        while head == entries.count { condition.wait() }
        let entry = entries[head]
        head += 1
        if head == entries.count || head >= 256 {
            // Reclaim the taken part now and then, without reallocating on every item.
            entries.removeFirst(head)
            head = 0
        }
        switch entry {
        case .item(.video, _): queuedPictures -= 1
        case .encoded: nudged = false
        default: break
        }
        return entry
    }

    var droppedCount: Int { condition.withLock { droppedPictures } }
}
