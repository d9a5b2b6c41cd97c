import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// Runs one encoder on a thread of its own, so that AAC encodes while the engine thread feeds x264 (the
/// ffmpeg CLI does the two one after the other on its main thread; a pure tone at 96–160 kb/s costs AAC
/// 40 ms of CPU per second of sound). The engine fills frames from a small pool and collects the packets;
/// every frame and packet is reused, and the encoder is touched by this thread alone until `join`.
final class EncoderThread: @unchecked Sendable {
    /// Frames of 1024 samples (21 ms at 48 kHz) the engine may queue ahead of AAC.
    static let audioFramePool = 8

    let encoder: Encoder
    private let condition = Condition()
    private var freeFrames: [Frame]
    /// Filled frames in order; the encoder works on the first.
    private var pendingFrames: [Frame] = []
    private var endRequested = false
    private var flushAtEnd = true
    private var readyPackets: [Packet] = []
    private var freePackets: [Packet] = []
    /// Owned by the engine thread: swapped with `readyPackets` to hand packets over without copying arrays.
    private var collected: [Packet] = []
    private var failure: Error?
    private var cpuNanoseconds: Int64 = 0
    private var thread: WorkerThread?

    /// `frames` is the pool to fill, each allocated for one encoder frame.
    init(encoder: Encoder, frames: [Frame], name: String) {
        self.encoder = encoder
        self.freeFrames = frames
        self.pendingFrames.reserveCapacity(frames.count)
        self.readyPackets.reserveCapacity(frames.count + 2)
        self.collected.reserveCapacity(frames.count + 2)
        thread = WorkerThread(name: name, stackSize: 256 << 10) { [self] in run() }
    }

    // MARK: engine side

    /// Lets `fill` write the next frame (waiting while the whole pool is queued), then queues it.
    /// Rethrows the encoder's failure, if it had one.
    func encode(_ fill: (Frame) throws -> Void) throws {
        condition.lock()
        while freeFrames.isEmpty && failure == nil { condition.wait() }
        if let failure {
            condition.unlock()
            throw failure
        }
        let frame = freeFrames.removeLast()
        condition.unlock()
        do {
            try fill(frame)
        } catch {
            condition.lock()
            freeFrames.append(frame)
            condition.unlock()
            throw error
        }
        condition.lock()
        pendingFrames.append(frame)
        condition.signal()
        condition.unlock()
    }

    /// Hands every packet encoded so far to `handle`, in order, without waiting. The packet is reused after
    /// `handle` returns (MovieWriter takes its payload). Rethrows the encoder's failure after the packets
    /// encoded before it.
    func collectPackets(_ handle: (Packet) throws -> Void) throws {
        condition.lock()
        swap(&readyPackets, &collected)
        let failure = self.failure
        condition.unlock()
        defer {
            condition.lock()
            freePackets.append(contentsOf: collected)
            condition.unlock()
            collected.removeAll(keepingCapacity: true)
        }
        for packet in collected { try handle(packet) }
        if let failure { throw failure }
    }

    /// No more frames: with `flush`, the encoder then drains its delayed frames; without, whatever is still
    /// queued is dropped (a limit stopped the recording). Returns once the thread has ended, with the
    /// CPU time it used; packets still to collect stay available to `collectPackets`.
    func finish(flush: Bool) -> Int64 {
        condition.lock()
        endRequested = true
        flushAtEnd = flush
        if !flush { pendingFrames.removeAll() }
        condition.signal()
        condition.unlock()
        thread?.join()
        thread = nil
        return condition.withLock { cpuNanoseconds }
    }

    // MARK: encoder thread

    private func run() {
        let start = CPUClock.threadNanoseconds()
        defer {
            let used = CPUClock.threadNanoseconds() - start
            condition.withLock { cpuNanoseconds = used }
        }
        while true {
            condition.lock()
            while pendingFrames.isEmpty && !endRequested { condition.wait() }
            let frame = pendingFrames.first
            let flush = frame == nil && flushAtEnd
            condition.unlock()
            if frame == nil && !flush { return }
            do {
                if try encoder.send(frame) == .outputFull {
                    try receiveAll()
                    _ = try encoder.send(frame)
                }
                try receiveAll()
            } catch {
                condition.withLock { failure = error; condition.broadcast() }
                return
            }
            guard let frame else { return }
            condition.lock()
            // `finish(flush: false)` may have emptied the queue meanwhile.
            if pendingFrames.first === frame { pendingFrames.removeFirst() }
            freeFrames.append(frame)
            condition.signal()
            condition.unlock()
        }
    }

    private func receiveAll() throws {
        // One lock per packet: hand the filled packet over and take the next empty one together.
        var packet = condition.withLock { freePackets.popLast() } ?? Packet()
        while try encoder.receive(into: packet) == .received {
            packet = condition.withLock { () -> Packet? in
                readyPackets.append(packet)
                return freePackets.popLast()
            } ?? Packet()
        }
        condition.withLock { freePackets.append(packet) }
    }
}
