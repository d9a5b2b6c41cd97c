import FoundationEssentials
import Glibc
import FFmpegCore

/// A captured picture or block of samples on its way from a reader thread to the encoding thread.
struct CapturedItem {
    let frame: Frame
    /// Session time of the item's start, in the reader's clock units (microseconds).
    let time: Timestamp
}

/// The bounded hand-off between reader threads and the encoding thread. Each media type has a fixed pool of
/// reusable frames: a reader fills a free one and queues it, the encoder returns it after use. When a paced
/// reader finds no free frame the encoder is behind and the frame is dropped (counted); an unpaced reader
/// waits instead. Memory is bounded by the pools, whatever the speeds.
final class CaptureBuffer: @unchecked Sendable {
    enum Next {
        case item(MediaType, CapturedItem)
        /// Every stream has ended and everything queued was taken.
        case allEnded
        /// Nothing new before the timeout: lets the encoder check stop requests and report progress.
        case idle
    }

    private let condition = Condition()
    private var queued: [MediaType: [CapturedItem]] = [.video: [], .audio: []]
    private var free: [MediaType: [Frame]] = [.video: [], .audio: []]
    private var ended: [MediaType: Bool] = [:]
    private let streams: [MediaType]
    private var closed = false

    init(videoFrames: Int, audioFrames: Int, streams: [MediaType]) {
        self.streams = streams
        if streams.contains(.video) { free[.video] = (0..<videoFrames).map { _ in Frame() } }
        if streams.contains(.audio) { free[.audio] = (0..<audioFrames).map { _ in Frame() } }
        for stream in streams { ended[stream] = false }
    }

    // MARK: reader side

    enum FreeFrame {
        case frame(Frame)
        /// None free and the reader may not wait: the encoder is behind, drop the input frame.
        case noneFree
        /// The recording is over: nothing more is taken (not a drop).
        case closed
    }

    /// A free frame to fill; with `wait`, blocks until one is returned or the buffer closes.
    func takeFreeFrame(_ type: MediaType, wait: Bool) -> FreeFrame {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return .closed }
            if let frame = free[type]?.popLast() { return .frame(frame) }
            if !wait { return .noneFree }
            condition.wait()
        }
    }

    func push(_ type: MediaType, _ item: CapturedItem) {
        condition.lock()
        queued[type]!.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// A frame taken but not queued (the reader decided not to use it).
    func giveBack(_ type: MediaType, _ frame: Frame) { recycle(type, frame) }

    func endStream(_ type: MediaType) {
        condition.lock()
        ended[type] = true
        condition.broadcast()
        condition.unlock()
    }

    // MARK: encoder side

    /// The queued item that starts first. With `ordered`, waits until every live stream has an item queued so
    /// the encoder sees streams in time order (unpaced inputs); otherwise takes whatever is queued (paced).
    func next(ordered: Bool, timeout: Double) -> Next {
        condition.lock()
        defer { condition.unlock() }
        let deadline = MonotonicClock.nanoseconds() + Int64(timeout * 1e9)
        while true {
            var best: (MediaType, CapturedItem)? = nil
            var waitingFor = false
            for type in streams {
                if let head = queued[type]!.first {
                    if best == nil || head.time < best!.1.time { best = (type, head) }
                } else if ended[type] == false {
                    waitingFor = true
                }
            }
            if let best, !(ordered && waitingFor) {
                queued[best.0]!.removeFirst()
                return .item(best.0, best.1)
            }
            if best == nil && !waitingFor { return .allEnded }
            if !condition.wait(untilNanoseconds: deadline) { return .idle }
        }
    }

    /// How many items of a type wait to be encoded.
    func queuedCount(_ type: MediaType) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return queued[type]?.count ?? 0
    }

    /// Removes and returns the oldest queued item of a type (used to discard audio from before the first
    /// picture when the audio pool is full).
    func takeOldest(_ type: MediaType) -> CapturedItem? {
        condition.lock()
        defer { condition.unlock() }
        guard let first = queued[type]?.first else { return nil }
        queued[type]!.removeFirst()
        return first
    }

    func recycle(_ type: MediaType, _ frame: Frame) {
        condition.lock()
        free[type]!.append(frame)
        condition.broadcast()
        condition.unlock()
    }

    /// Wakes every waiter for good: readers get no more frames.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func hasEnded(_ type: MediaType) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended[type] ?? true
    }
}
