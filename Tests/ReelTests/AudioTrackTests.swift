@testable import Reel
import Testing

/// The sound track's bookkeeping without an encoder: frame lengths at limits, walls and wait points.
@Suite struct AudioTrackTests {
    private func next(_ position: Int64, queued: Int = 5000, limit: Int64? = nil, wall: Int64? = nil,
                      waitPoint: Int64? = nil, final: Bool = false) -> AudioTrack.NextFrame {
        AudioTrack.nextFrame(position: position, frameSize: 1024, queued: queued, limit: limit, wall: wall,
                             waitPoint: waitPoint, final: final)
    }

    @Test func wholeFramesWhileEnoughIsQueued() {
        #expect(next(0) == .encode(1024))
        #expect(next(0, queued: 1023) == .wait)
        #expect(next(0, queued: 1023, final: true) == .encode(1023))
        #expect(next(0, queued: 0, final: true) == .wait)
    }

    /// 1 s at 48 kHz: the frame that reaches the limit is cut there, the next one is the end.
    @Test func theLimitCutsTheLastFrame() {
        #expect(next(47_104, limit: 48_000) == .encode(896))
        #expect(next(48_000, limit: 48_000) == .limitReached)
    }

    /// A planned segment boundary: the audio waits there until the video commits it (then the wall is gone
    /// and the frame crosses the boundary whole: the files share one encoder, SegmentRouter.routeAudio).
    @Test func aWallWaitsForTheCommit() {
        #expect(next(1000, wall: 1500) == .wait)
        #expect(next(1000) == .encode(1024))
        #expect(next(0, wall: 1500) == .encode(1024))
        #expect(next(476, wall: 1500) == .encode(1024))
        #expect(next(477, wall: 1500) == .wait)
    }

    /// Audio goes no further than the pictures sent, unless it leads them by more than the alignment limit.
    @Test func theWaitPointFollowsThePicturesUnlessTheyLagFar() {
        var track = AudioTrack(sampleRate: 48_000)
        #expect(track.waitPoint(originSample: 0, queued: 4096, videoSent: 1600) == nil)  // nothing queued yet
        track.queueStart = 10_000
        #expect(track.waitPoint(originSample: 10_000, queued: 4096, videoSent: 1600) == 1600)
        #expect(track.waitPoint(originSample: 10_000, queued: 48_000, videoSent: 1600) == 24_000)
        #expect(track.waitPoint(originSample: 10_000, queued: 4096, videoSent: nil) == nil)
        #expect(next(0, waitPoint: 1600) == .encode(1024))
        #expect(next(1024, waitPoint: 1600) == .wait)
    }

    /// A stop caps the audio at the video's end when they are within half a second, not after a stall.
    @Test func aStopCapsTheAudioAtTheVideosEndOnlyWhenClose() {
        var track = AudioTrack(sampleRate: 48_000)
        track.queueStart = 0
        track.capAtVideoEnd(48_000, originSample: 0, queued: 50_000)
        #expect(track.endCap == 48_000)
        var stalled = AudioTrack(sampleRate: 48_000)
        stalled.queueStart = 0
        stalled.capAtVideoEnd(48_000, originSample: 0, queued: 100_000)
        #expect(stalled.endCap == nil)
        #expect(stalled.queuedEnd(originSample: 0, queued: 100_000) == 100_000)
        #expect(stalled.encodedEnd(originSample: 0) == 0)
    }
}
