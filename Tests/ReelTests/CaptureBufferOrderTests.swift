import FFmpegCore
@testable import Reel
import Testing

/// The orders in which the session takes what the readers queued (CaptureBuffer.Order), on slots without
/// pictures: times alone decide. The sound's reader of unpaced inputs runs ahead of the pictures' by as much
/// as its pool holds; at a stop (`endStreamsTogether`) the session hands out only what lies before the end of the
/// stream that runs dry first, so a stopped movie's tracks end together.
@Suite struct CaptureBufferOrderTests {
    /// Pictures every 1/30 s from 0 and blocks of 1024 samples at 48 kHz (21.333 ms) from 0, `pictures` and
    /// `blocks` of them queued.
    static func filled(pictures: Int, blocks: Int) -> CaptureBuffer {
        let buffer = CaptureBuffer(videoFrames: pictures, audioFrames: blocks, streams: [.video, .audio])
        for index in 0..<pictures { queue(.video, at: Int64(index) * 1_000_000 / 30, in: buffer) }
        for index in 0..<blocks { queue(.audio, at: Int64(index) * 1024 * 1_000_000 / 48_000, in: buffer) }
        return buffer
    }

    static func queue(_ type: MediaType, at microseconds: Int64, in buffer: CaptureBuffer) {
        guard case .slot(let slot) = buffer.takeFreeSlot(type, wait: false) else { Issue.record("no free slot"); return }
        buffer.push(type, CapturedItem(slot: slot, time: Timestamp(value: microseconds, timeBase: sessionTimeBase)))
    }

    /// Takes items in `order` until the buffer says it ended or has nothing now: their types and times.
    static func drain(_ buffer: CaptureBuffer, _ order: CaptureBuffer.Order) -> [(MediaType, Int64)] {
        var taken: [(MediaType, Int64)] = []
        while case .item(let type, let item) = buffer.next(order, timeout: 0) {
            taken.append((type, item.time.value))
            buffer.release(type, item.slot)
        }
        return taken
    }

    @Test func unpacedInputsAreHandedOutInTimeOrderWhileEveryStreamHasAnItem() {
        let buffer = Self.filled(pictures: 5, blocks: 64)
        let taken = Self.drain(buffer, .byTime)
        #expect(taken.map(\.1) == taken.map(\.1).sorted(), "in time order")
        // The last picture (at 133 ms) is handed; then the pictures' queue is empty and the stream goes on.
        #expect(taken.filter { $0.0 == .video }.count == 5)
        #expect(taken.last?.0 == .video, "it waits for the next picture rather than run ahead: \(taken.suffix(3))")
    }

    @Test func aStopHandsOutNoSoundPastThePicturesEnd() {
        let buffer = Self.filled(pictures: 5, blocks: 64)
        buffer.endStreamsTogether()
        buffer.endStream(.video)  // the readers were stopped: no more pictures
        let taken = Self.drain(buffer, .byTime)
        let pictures = taken.filter { $0.0 == .video }.map(\.1), sound = taken.filter { $0.0 == .audio }.map(\.1)
        #expect(pictures.count == 5)
        // The pictures end at 166.7 ms (the last at 133.3 ms, a frame long): the blocks that start before that.
        #expect(sound.count == 8 && sound.last == 7 * 1024 * 1_000_000 / 48_000, "blocks \(sound)")
        #expect(buffer.next(.byTime, timeout: 0).isAllEnded, "the rest is past the pictures' end")
        // Without it, every block: 1.37 s of sound for 0.17 s of pictures.
        let before = Self.filled(pictures: 5, blocks: 64)
        before.endStream(.video)
        #expect(Self.drain(before, .byTime).filter { $0.0 == .audio }.count == 64)
    }

    @Test func aStopHandsOutNoPicturesPastTheSoundsEnd() {
        let buffer = Self.filled(pictures: 30, blocks: 4)
        buffer.endStreamsTogether()
        buffer.endStream(.audio)
        let taken = Self.drain(buffer, .byTime)
        // The sound ends at 85.3 ms: the pictures that end by then (0 and 33.3 ms; the one at 66.7 ms would
        // last until 100 ms, its last 15 ms without sound).
        #expect(taken.filter { $0.0 == .video }.count == 2 && taken.filter { $0.0 == .audio }.count == 4, "\(taken)")
    }

    /// A picture that ends exactly where the sound ends is handed out (no sound is missing under it).
    @Test func aStopHandsOutAPictureThatEndsWithTheSound() {
        let buffer = CaptureBuffer(videoFrames: 10, audioFrames: 4, streams: [.video, .audio])
        // Pictures every 32 ms; 3 blocks of 32 ms of sound (1536 samples at 48 kHz): the sound ends at 96 ms.
        for index in 0..<10 { Self.queue(.video, at: Int64(index) * 32_000, in: buffer) }
        for index in 0..<3 { Self.queue(.audio, at: Int64(index) * 32_000, in: buffer) }
        buffer.endStreamsTogether()
        buffer.endStream(.audio)
        let pictures = Self.drain(buffer, .byTime).filter { $0.0 == .video }.map(\.1)
        #expect(pictures == [0, 32_000, 64_000], "\(pictures)")
    }

    /// A stream that had ended before the stop (a file whose sound is shorter than its pictures) cuts nothing:
    /// the stop hands out the pictures queued.
    @Test func aStreamThatEndedBeforeTheStopCutsNothing() {
        let buffer = Self.filled(pictures: 10, blocks: 2)
        buffer.endStream(.audio)
        let before = Self.drain(buffer, .byTime)
        #expect(before.count == 12, "the sound ended: the pictures are handed out without waiting for it")
        for index in 10..<15 { Self.queue(.video, at: Int64(index) * 1_000_000 / 30, in: buffer) }
        buffer.endStreamsTogether()
        buffer.endStream(.video)
        #expect(Self.drain(buffer, .byTime).count == 5)
    }
}

extension CaptureBuffer.Next {
    var isAllEnded: Bool { if case .allEnded = self { true } else { false } }
}
