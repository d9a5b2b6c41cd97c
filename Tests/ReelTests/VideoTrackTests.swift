import FFmpegCore
@testable import Reel
import Testing

/// The picture track's decisions without an encoder: slots, keyframes, repeats, limits.
@Suite struct VideoTrackTests {
    /// Sends every slot the cadence gives `times` (seconds from the origin, a last picture's end at `end`),
    /// with segments starting at `segmentStarts`; returns the slots sent and which were keyframes.
    private func run(_ track: inout VideoTrack, times: [Double], end: Int64 = 0, segmentStarts: [Int64] = [0])
        -> (slots: [Int64], keyframes: [Int64]) {
        var slots: [Int64] = [], keyframes: [Int64] = []
        func send(_ range: Range<Int64>) {
            for slot in range {
                let start = segmentStarts.last { $0 <= slot } ?? 0
                if track.send(slot: slot, segmentStart: start, isRepeat: slot > range.lowerBound) { keyframes.append(slot) }
                slots.append(slot)
            }
        }
        for time in times { send(track.arrive(after: Timestamp(value: Int64(time * 1e6), timeBase: Rational(1, 1_000_000)))) }
        send(track.finish(atLeast: end))
        return (slots, keyframes)
    }

    @Test func aSteadySourceFillsEverySlotOnceWithoutForcedKeyframes() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        let result = run(&track, times: (0..<60).map { Double($0) / 30 })
        #expect(result.slots == Array(0..<60))
        #expect(result.keyframes.isEmpty)  // the first picture is a keyframe by itself
        #expect(track.framesSent == 60 && track.repeats == 0 && track.nextSlotToSend == 60)
    }

    /// 15 fps into 30: every picture is shown twice, the second a repeat.
    @Test func aSlowerSourceIsRepeated() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        let result = run(&track, times: (0..<15).map { Double($0) / 15 })
        #expect(result.slots == Array(0..<30))
        #expect(track.repeats == 15)
    }

    /// Fragments of 1 s force the first picture of each second; segments force their first picture and
    /// count their fragments from it.
    @Test func fragmentsAndSegmentsForceTheirFirstPictures() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 1)
        var fragments = run(&track, times: (0..<95).map { Double($0) / 30 })
        #expect(fragments.keyframes == [30, 60, 90])

        track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 1)
        var slots: [Int64] = [], keyframes: [Int64] = []
        for slot in Int64(0)..<100 {
            if slot == 45 { track.startSegment() }
            if track.send(slot: slot, segmentStart: slot >= 45 ? 45 : 0, isRepeat: false) { keyframes.append(slot) }
            slots.append(slot)
        }
        #expect(keyframes == [30, 45, 75])
        fragments = (slots, keyframes)
        #expect(fragments.slots.count == 100)
    }

    /// After a resume the next picture starts a group of pictures; only that one.
    @Test func theFirstPictureAfterAResumeIsAKeyframe() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        for slot in Int64(0)..<10 { _ = track.send(slot: slot, segmentStart: 0, isRepeat: false) }
        track.pause()
        track.resume()
        let atResume = track.send(slot: 10, segmentStart: 0, isRepeat: false)
        let after = track.send(slot: 11, segmentStart: 0, isRepeat: false)
        #expect(atResume && !after)
    }

    /// A live stream that joins a running movie asks for a keyframe: the next picture sent is one, only that.
    @Test func aJoiningStreamGetsTheNextPictureAsAKeyframe() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        let before = (Int64(0)..<10).map { track.send(slot: $0, segmentStart: 0, isRepeat: false) }
        track.requestKeyframe()
        let joined = (Int64(10)..<13).map { track.send(slot: $0, segmentStart: 0, isRepeat: false) }
        #expect(!before.contains(true) && joined == [true, false, false])
    }

    /// A resume before the first picture forces nothing: the first picture is a keyframe anyway.
    @Test func aResumeBeforeTheFirstPictureForcesNothing() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        track.resume()
        let first = track.send(slot: 0, segmentStart: 0, isRepeat: false)
        #expect(!first)
    }

    @Test func theDurationLimitKeepsWholeFramesAndAtLeastOne() {
        let track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        #expect(track.slotLimit(seconds: 5) == 150)
        #expect(track.slotLimit(seconds: 1.01) == 30)
        #expect(track.slotLimit(seconds: 0.001) == 1)
        let ntsc = VideoTrack(frameRate: Rational(30000, 1001), fragmentInterval: 0)
        #expect(ntsc.slotLimit(seconds: 10) == 299)
    }

    /// At a stop the held picture lasts until the audio ends (`atLeast`), and what is in flight is counted.
    @Test func aStopExtendsTheLastPictureAndCountsFramesInFlight() {
        var track = VideoTrack(frameRate: Rational(30, 1), fragmentInterval: 0)
        let result = run(&track, times: (0..<10).map { Double($0) / 30 }, end: 14)
        #expect(result.slots == Array(0..<14))
        #expect(track.repeats == 4)
        for _ in 0..<9 { track.packetReceived() }
        #expect(track.framesInFlight == 5)
    }
}
