import FoundationEssentials
import Glibc
import FFmpegCore
import SystemSupport

/// The bounded hand-off between reader threads and the session thread. Each media type has a fixed pool of
/// reusable slots: a reader fills a free one and queues it, the session takes it and shares it with the
/// outputs, and the last holder releases it back. When a paced reader finds no free slot the outputs are
/// behind and the frame is dropped (counted); an unpaced reader waits instead. Memory is bounded by the
/// pools, whatever the speeds.
final class CaptureBuffer: @unchecked Sendable {
    enum Next {
        case item(MediaType, CapturedItem)
        /// Every stream has ended and everything queued was taken (or, after `endStreamsTogether`, what is
        /// left lies past the end of a stream that ran dry).
        case allEnded
        /// Nothing new before the timeout: lets the encoder check stop requests and report progress.
        case idle
    }

    private let condition = Condition()
    private var queued: [MediaType: [CapturedItem]] = [.video: [], .audio: []]
    private var free: [MediaType: [CaptureSlot]] = [.video: [], .audio: []]
    private var ended: [MediaType: Bool] = [:]
    private let streams: [MediaType]
    private var closed = false
    /// The start of the last item handed out of each stream, and the step from the one before it.
    private var handed: [MediaType: (time: Timestamp, step: Timestamp?)] = [:]
    /// Which streams had ended at `endStreamsTogether` (nil before it).
    private var endedBeforeStop: [MediaType: Bool]? = nil
    /// Slots to take out of the pools as they come back (an added output that finished).
    private var retiring: [MediaType: Int] = [.video: 0, .audio: 0]

    /// Frames in an audio slot: one per sound track (several only when inputs are recorded as separate tracks).
    private let audioTracks: Int

    init(videoFrames: Int, audioFrames: Int, streams: [MediaType], audioTracks: Int = 1) {
        self.streams = streams
        self.audioTracks = audioTracks
        if streams.contains(.video) { free[.video] = (0..<videoFrames).map { _ in CaptureSlot(frames: []) } }
        if streams.contains(.audio) { free[.audio] = (0..<audioFrames).map { _ in CaptureBuffer.audioSlot(tracks: audioTracks) } }
        for stream in streams { ended[stream] = false }
    }

    /// More slots for a type, for an output added while the session runs (it holds pictures of its own).
    func addSlots(_ type: MediaType, count: Int) {
        condition.lock()
        free[type]?.append(contentsOf: (0..<count).map { _ in type == .audio ? CaptureBuffer.audioSlot(tracks: audioTracks) : CaptureSlot(frames: []) })
        condition.broadcast()
        condition.unlock()
    }

    /// Gives back what `addSlots` added once an added output has finished: free slots go at once, the rest
    /// as their holders release them, so a long-running session's memory does not grow with every movie.
    func removeSlots(_ type: MediaType, count: Int) {
        condition.lock()
        defer { condition.unlock() }
        let now = min(count, free[type]?.count ?? 0)
        free[type]?.removeLast(now)
        retiring[type, default: 0] += count - now
    }

    private static func audioSlot(tracks: Int) -> CaptureSlot { CaptureSlot(frames: (0..<tracks).map { _ in Frame() }) }

    /// Back to the pool, unless the pool is shrinking. Called with the lock held.
    private func returnToPool(_ type: MediaType, _ slot: CaptureSlot) {
        if retiring[type, default: 0] > 0 {
            retiring[type]! -= 1
            return
        }
        free[type]!.append(slot)
        condition.broadcast()
    }

    // MARK: reader side

    enum FreeSlot {
        case slot(CaptureSlot)
        /// None free and the reader may not wait: the outputs are behind, drop the input frame.
        case noneFree
        /// The session is over: nothing more is taken (not a drop).
        case closed
    }

    /// A free slot to fill; with `wait`, blocks until one is released or the buffer closes.
    func takeFreeSlot(_ type: MediaType, wait: Bool) -> FreeSlot {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return .closed }
            if let slot = free[type]?.popLast() { return .slot(slot) }
            if !wait { return .noneFree }
            condition.wait()
        }
    }

    func push(_ type: MediaType, _ item: CapturedItem) {
        condition.lock()
        item.slot.holders = 1
        queued[type]!.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// A slot taken but not queued (the reader decided not to use it).
    func giveBack(_ type: MediaType, _ slot: CaptureSlot) {
        condition.lock()
        returnToPool(type, slot)
        condition.unlock()
    }

    func endStream(_ type: MediaType) {
        condition.lock()
        ended[type] = true
        condition.broadcast()
        condition.unlock()
    }

    // MARK: session side

    /// In which order `next` hands out what the readers queued.
    enum Order: Sendable {
        /// Whatever is queued, the item that starts first: paced inputs, each stream on the clock.
        case asQueued
        /// Strict time order across streams: waits until every live stream has an item queued (unpaced
        /// inputs, read as fast as the outputs take them).
        case byTime
    }

    /// A stop of unpaced inputs, before their readers are stopped: from now on `.byTime` hands out only what
    /// lies before the end of the first stream that runs dry (pictures whole, see `handsOutAtStop`). Their
    /// readers run apart by as much as their pools hold (the sound's 16 blocks, 0.34 s, ahead of 4 pictures);
    /// what one stream holds past the other's end is left out, so the tracks of a stopped movie end together,
    /// as those of a live stop do.
    /// (A stream that had ended already, a file's shorter track, cuts nothing.)
    func endStreamsTogether() {
        condition.lock()
        endedBeforeStop = ended
        condition.unlock()
    }

    /// The queued item that starts first, held once by the caller, in `order`.
    func next(_ order: Order, timeout: Double) -> Next {
        condition.lock()
        defer { condition.unlock() }
        let deadline = MonotonicClock.nanoseconds() + Int64(timeout * 1e9)
        while true {
            var best: (MediaType, CapturedItem)? = nil
            var waitingFor = false
            var dryEnd: Timestamp? = nil
            for type in streams {
                if let head = queued[type]!.first {
                    if best == nil || head.time < best!.1.time { best = (type, head) }
                } else if ended[type] == false {
                    waitingFor = true
                } else if order == .byTime, endedBeforeStop?[type] == false, let end = handedEnd(type),
                          dryEnd.map({ end < $0 }) ?? true {
                    dryEnd = end
                }
            }
            if let best, let dryEnd, !handsOutAtStop(best.0, best.1, before: dryEnd) { return .allEnded }
            if let best, order == .asQueued || !waitingFor {
                queued[best.0]!.removeFirst()
                let previous = handed[best.0]?.time
                handed[best.0] = (best.1.time, previous.map { best.1.time - $0 })
                return .item(best.0, best.1)
            }
            if best == nil && !waitingFor { return .allEnded }
            if !condition.wait(untilNanoseconds: deadline) { return .idle }
        }
    }

    /// Whether the next item of a stream lies before the end of the stream that ran dry at a stop: a block of
    /// sound if it starts before it (the movie cuts the sound at its last picture's end), a picture only if it
    /// ends by it (a picture that outlasts the sound would end the movie in silence: its sound is padded to the
    /// pictures' end). A picture's length is the step from the one handed out before it.
    private func handsOutAtStop(_ type: MediaType, _ item: CapturedItem, before dryEnd: Timestamp) -> Bool {
        guard type == .video, let previous = handed[.video]?.time else { return item.time < dryEnd }
        return !(dryEnd < item.time + (item.time - previous))
    }

    /// Where the last item handed out of a stream ends: its start plus the step from the one before (a
    /// stream's items are evenly spaced: pictures a frame apart, blocks of samples a block apart).
    private func handedEnd(_ type: MediaType) -> Timestamp? {
        guard let last = handed[type] else { return nil }
        return last.step.map { last.time + $0 } ?? last.time
    }

    /// One more holder of a taken item's slot (an output it is handed to).
    func hold(_ item: CapturedItem) {
        condition.lock()
        item.slot.holders += 1
        condition.unlock()
    }

    /// A holder is done with the slot; the last one gives it back to the pool.
    func release(_ type: MediaType, _ slot: CaptureSlot) {
        condition.lock()
        slot.holders -= 1
        precondition(slot.holders >= 0, "a capture slot was released more often than it was held")
        if slot.holders == 0 { returnToPool(type, slot) }
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
