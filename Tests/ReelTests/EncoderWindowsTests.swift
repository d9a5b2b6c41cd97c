import FFmpegCore
@testable import Reel
import Testing

/// A movie's windows onto a shared encoder's slots (EncoderWindows): which slots it holds, where they fall
/// on its own timeline, and where its duration limit falls on the encoder's.
@Suite struct EncoderWindowsTests {
    @Test func aMovieHoldsTheSlotsFromItsStartToItsEnd() {
        var windows = EncoderWindows(start: 40)
        #expect(windows.movieSlot(of: 39) == nil)
        #expect(windows.movieSlot(of: 40) == 0)
        #expect(windows.movieSlot(of: 100) == 60)
        windows.stop(at: 90)
        #expect(windows.movieSlot(of: 89) == 49)
        #expect(windows.movieSlot(of: 90) == nil)
        // The earliest stop stands; one asked before the start ends the movie before its first picture.
        windows.stop(at: 120)
        #expect(windows.end == 90)
        windows.stop(at: 10)
        #expect(windows.end == 40 && windows.movieSlot(of: 40) == nil)
    }

    @Test func pausesLeaveOutWholeSlotsAndTheTimelineGoesOn() throws {
        var windows = EncoderWindows(start: 10)
        windows.pause(at: 30)
        #expect(windows.isPaused)
        #expect(windows.movieSlot(of: 29) == 19 && windows.movieSlot(of: 30) == nil && windows.movieSlot(of: 500) == nil)
        windows.pause(at: 35)  // already paused: nothing changes
        windows.resume(at: 50)
        #expect(!windows.isPaused)
        #expect(windows.movieSlot(of: 49) == nil)
        #expect(windows.movieSlot(of: 50) == 20, "the first picture after the resume follows the last before the pause")
        windows.resume(at: 60)  // not paused: nothing changes
        windows.pause(at: 70)
        windows.resume(at: 75)
        #expect(windows.movieSlot(of: 69) == 39 && windows.movieSlot(of: 72) == nil && windows.movieSlot(of: 75) == 40)
        // A limit of 45 slots on the movie's timeline falls 25 slots later on the encoder's (20 + 5 paused).
        #expect(windows.encoderSlot(ofMovieSlot: 45) == Int64(10 + 45 + 25))
        #expect(windows.movieSlot(of: try #require(windows.encoderSlot(ofMovieSlot: 45))) == 45)
    }

    /// What a replay saved now reaches: the movie's slot of the encoder's newest picture, or the last it held
    /// before a pause or its end.
    @Test func theLatestSlotHeldUpToAnEncodersSlot() {
        var windows = EncoderWindows()
        #expect(windows.lastMovieSlot(atOrBefore: 5) == nil, "not joined")
        windows.join(at: 10)
        #expect(windows.lastMovieSlot(atOrBefore: 9) == nil && windows.lastMovieSlot(atOrBefore: 12) == 2)
        windows.pause(at: 20)
        #expect(windows.lastMovieSlot(atOrBefore: 25) == 9, "paused: its last picture before the pause")
        windows.resume(at: 30)
        #expect(windows.lastMovieSlot(atOrBefore: 25) == 9 && windows.lastMovieSlot(atOrBefore: 30) == 10)
        windows.stop(at: 40)
        #expect(windows.lastMovieSlot(atOrBefore: 50) == 19, "stopped: its last picture")
        var early = EncoderWindows()
        early.join(at: 10)
        early.pause(at: 10)
        #expect(early.lastMovieSlot(atOrBefore: 12) == nil, "paused at its first picture: none held yet")
    }

    @Test func theSlotsHeldBeforeAnEncodersSlot() {
        var windows = EncoderWindows()
        #expect(windows.slotsHeld(before: 5) == 0, "not joined")
        windows.join(at: 10)
        #expect(windows.slotsHeld(before: 10) == 0 && windows.slotsHeld(before: 13) == 3)
        windows.pause(at: 20)
        #expect(windows.slotsHeld(before: 20) == 10 && windows.slotsHeld(before: 26) == 10, "none in the pause")
        windows.resume(at: 30)
        #expect(windows.slotsHeld(before: 30) == 10 && windows.slotsHeld(before: 31) == 11)
        #expect(windows.slotsHeld(before: 30) == windows.movieSlot(of: 30), "a resume's slot is the movie's next")
        windows.stop(at: 40)
        #expect(windows.slotsHeld(before: 40) == 20 && windows.slotsHeld(before: 90) == 20, "stopped: all it holds")
        var tap = EncoderWindows()
        tap.join(at: 10)
        tap.stop(at: 10)
        #expect(tap.slotsHeld(before: 10) == 0 && tap.slotsHeld(before: 11) == 0, "stopped at its first slot: none")
    }

    @Test func aPauseBeforeTheFirstPictureHoldsItBackUntilTheResume() {
        var windows = EncoderWindows(start: 0)
        windows.pause(at: 0)
        #expect(windows.movieSlot(of: 0) == nil && windows.movieSlot(of: 14) == nil)
        #expect(windows.encoderSlot(ofMovieSlot: 3) == 3, "an open pause moves nothing yet")
        windows.resume(at: 15)
        #expect(windows.movieSlot(of: 15) == 0 && windows.movieSlot(of: 16) == 1)
        // A resume at the pause's own slot leaves nothing out.
        var empty = EncoderWindows(start: 5)
        empty.pause(at: 8)
        empty.resume(at: 8)
        #expect(empty.movieSlot(of: 8) == 3)
        // A pause asked before the movie's start counts from its start.
        var early = EncoderWindows(start: 20)
        early.pause(at: 12)
        early.resume(at: 26)
        #expect(early.movieSlot(of: 25) == nil && early.movieSlot(of: 26) == 0)
    }

    /// A movie with sound joins at its first sound: until then it holds nothing, and what was asked of it
    /// before falls at its start at the earliest.
    @Test func whatIsAskedBeforeTheJoinFallsAtItAtTheEarliest() {
        var waiting = EncoderWindows()
        #expect(waiting.start == nil && waiting.movieSlot(of: 0) == nil && waiting.encoderSlot(ofMovieSlot: 10) == nil)
        waiting.join(at: 30)
        #expect(waiting.movieSlot(of: 29) == nil && waiting.movieSlot(of: 30) == 0 && waiting.encoderSlot(ofMovieSlot: 10) == 40)
        waiting.join(at: 50)  // once only
        #expect(waiting.start == 30)
        // Paused before the join, resumed after it: the pause begins at the start.
        var paused = EncoderWindows()
        paused.pause(at: 12)
        paused.join(at: 20)
        #expect(paused.isPaused && paused.pausedFrom == 20)
        paused.resume(at: 26)
        #expect(paused.movieSlot(of: 25) == nil && paused.movieSlot(of: 26) == 0)
        // Paused and resumed before the join: nothing is left out.
        var brief = EncoderWindows()
        brief.pause(at: 5)
        brief.resume(at: 8)
        brief.join(at: 10)
        #expect(brief.movieSlot(of: 10) == 0 && brief.encoderSlot(ofMovieSlot: 3) == 13)
        // Stopped before the join: the movie holds nothing.
        var stopped = EncoderWindows()
        stopped.stop(at: 4)
        stopped.join(at: 9)
        #expect(stopped.end == 9 && stopped.movieSlot(of: 9) == nil)
    }
}

/// What a shared encoder does with a slot (EncodedPacketLog.beginSend): the keyframes asked for, and nothing
/// while every movie is paused and has its pictures from before its pause.
@Suite struct EncodedPacketLogTests {
    @Test func keyframesFallWhereAskedOrAtTheNextSlotNotSent() {
        let log = EncodedPacketLog(encoderWaits: false)
        _ = log.subscribe()
        #expect(log.requestKeyframe(atOrAfter: 10) == 10)
        #expect(log.beginSend(slot: 9, highestPacket: -1) == .send(forcingKeyframe: false))
        #expect(log.beginSend(slot: 10, highestPacket: -1) == .send(forcingKeyframe: true))
        #expect(log.beginSend(slot: 11, highestPacket: -1) == .send(forcingKeyframe: false))
        // Asked for a slot already sent: the next one.
        #expect(log.requestKeyframe(atOrAfter: 5) == 12)
        #expect(log.beginSend(slot: 12, highestPacket: 8) == .send(forcingKeyframe: true))
    }

    /// A picture the encoder repeated (the source fell short) is marked on its packet's slot for every movie
    /// that takes it, across the log's pruning.
    @Test func repeatsAreMarkedOnTheSlotsTaken() throws {
        let log = EncodedPacketLog(encoderWaits: false)
        let id = try #require(log.subscribe())
        func packets(_ slots: Range<Int64>) -> [Packet] {
            slots.map { slot in
                let packet = Packet()
                packet.pts = slot
                packet.dts = slot
                return packet
            }
        }
        var spare: [Packet] = [], taken: [Packet] = [], pool: [Packet] = []
        log.publish(packets(0..<3), repeated: [false, true, false], spare: &spare)
        let first = try log.take(id, into: &taken, pool: &pool)
        #expect(taken.map(\.pts) == [0, 1, 2] && first.repeatedSlots == [1])
        taken.removeAll()
        log.publish(packets(3..<5), repeated: [true, false], spare: &spare)
        let second = try log.take(id, into: &taken, pool: &pool)
        #expect(taken.map(\.pts) == [3, 4] && second.repeatedSlots == [3] && log.heldPackets == 0)
    }

    @Test func nothingIsEncodedWhileEveryMovieIsPausedWithItsPicturesOut() throws {
        let log = EncodedPacketLog(encoderWaits: false)
        let first = try #require(log.subscribe())
        let second = try #require(log.subscribe())
        log.paused(first, from: 20)
        #expect(log.beginSend(slot: 20, highestPacket: 20) == .send(forcingKeyframe: false), "the other still records")
        log.paused(second, from: 22)
        // The second's pause keyframe (22) has not come out: the pictures before it are still in the encoder.
        #expect(log.beginSend(slot: 23, highestPacket: 21) == .send(forcingKeyframe: false))
        #expect(log.beginSend(slot: 24, highestPacket: 22) == .skip)
        // The first resumes at 27: nothing is wanted before it, and it is sent.
        log.resumed(first, at: 27)
        #expect(log.beginSend(slot: 25, highestPacket: 22) == .skip)
        #expect(log.beginSend(slot: 27, highestPacket: 22) == .send(forcingKeyframe: false))
        // A movie that left is not waited for.
        log.leave(first)
        #expect(log.beginSend(slot: 28, highestPacket: 22) == .skip)
    }

    /// A resume's slot is held for it from the moment it is asked (`reserveResume`) until its movies are told
    /// (`resumeTold`): an encoder of unpaced inputs skips slots as fast as it can while every movie is paused,
    /// and must not pass the resume's slot in between (it did: the movies then resumed 14 pictures late, their
    /// sound 0.45 s early against them).
    @Test func aResumesSlotIsNotSkippedBeforeItsMoviesAreTold() throws {
        let log = EncodedPacketLog(encoderWaits: false)
        let id = try #require(log.subscribe())
        log.paused(id, from: 10)
        #expect(log.beginSend(slot: 10, highestPacket: 10) == .skip)
        let resume = log.reserveResume(atOrAfter: 12)
        #expect(resume == 12)
        #expect(log.beginSend(slot: 11, highestPacket: 10) == .skip, "before the resume's slot, still nothing wanted")
        #expect(log.beginSend(slot: 12, highestPacket: 10) == .send(forcingKeyframe: true), "the resume's keyframe, before the movie is told")
        #expect(log.beginSend(slot: 13, highestPacket: 12) == .send(forcingKeyframe: false))
        log.resumed(id, at: resume)
        log.resumeTold(resume)
        #expect(log.beginSend(slot: 14, highestPacket: 13) == .send(forcingKeyframe: false))
        // Once told, a later pause of every movie skips again.
        log.paused(id, from: 15)
        #expect(log.beginSend(slot: 16, highestPacket: 15) == .skip)
    }
}
