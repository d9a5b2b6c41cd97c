import QuickTime
@testable import Reel
import Testing

/// The cut plan of a live stream on simulated encoder output: x264-like video at 30 fps (B-frames decode
/// ahead, a keyframe every 2 s and at each 6 s boundary) and AAC at 48 kHz trailing the pictures by two
/// frames, as a movie hands them over. Payloads are packet numbers.
@Suite struct LiveSegmenterTests {
    /// `frames` pictures in decode order, keyframes at multiples of `gop`: each I/P is sent ahead of the two
    /// B-frames shown before it, and dts runs two frames behind pts (as x264's with 2 B-frames).
    static func pictures(_ frames: Int, gop: Int = 60) -> [Sample] {
        var order: [Int64] = []
        var next = 0
        while next < frames {
            if next % gop == 0 { order.append(Int64(next)); next += 1; continue }
            let anchor = min(next + 2, frames - 1, (next / gop + 1) * gop - 1)
            order.append(Int64(anchor))
            for b in next..<anchor { order.append(Int64(b)) }
            next = anchor + 1
        }
        return order.enumerated().map { decode, pts in
            Sample(decodeTime: Int64(decode) - 2, presentationOffset: pts - (Int64(decode) - 2), duration: 1, size: 10,
                   isKeyframe: pts % Int64(gop) == 0)
        }
    }

    /// Feeds pictures and AAC frames interleaved the way a movie hands them over (audio up to the pictures sent).
    /// `lead`: audio runs that many pictures ahead of the video packets (pictures still inside x264's
    /// lookahead and frame threads), or behind when negative.
    static func run(_ segmenter: inout LiveSegmenter<Int>, frames: Int, audio: Bool = true, lead: Int64 = 0) -> [LiveSegmenter<Int>.Piece] {
        var done: [LiveSegmenter<Int>.Piece] = []
        var audioNext: Int64 = -1024
        for (index, picture) in pictures(frames).enumerated() {
            done += segmenter.addVideo(picture, index)
            // Audio encoded as far as this picture's decode position.
            let until = (picture.decodeTime + 1 + lead) * 1600
            while audio && audioNext + 1024 <= until {
                done += segmenter.addAudio(Sample(decodeTime: audioNext, duration: 1024, size: 5, isKeyframe: true), 10_000 + Int(audioNext))
                audioNext += 1024
            }
        }
        return done + segmenter.finish()
    }

    @Test(arguments: [0, 15, -3] as [Int64])
    func segmentsAreExactAndHoldEveryPacketOnce(lead: Int64) {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 6, videoTimeBase: TimeBase(1, 30), audioTimeBase: TimeBase(1, 48000))
        let segments = LiveSegmenterTests.run(&segmenter, frames: 600, lead: lead)
        #expect(segments.map(\.duration) == [6, 6, 6, 2])
        #expect(segments.map { $0.video.count } == [180, 180, 180, 60])
        #expect(segments.allSatisfy { $0.video.first?.sample.isKeyframe == true && $0.video.first?.sample.presentationTime == $0.start })
        // Every picture once, in decode order, each segment's decode times running on from the one before.
        let all = segments.flatMap(\.video)
        #expect(all.map(\.payload) == Array(0..<600))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sample.decodeTime + $0.sample.duration == $1.sample.decodeTime })
        // Audio: each packet once, in the segment its start falls in (the priming frame in the first).
        let sound = segments.flatMap(\.audio)
        #expect(sound.map(\.sample.decodeTime) == Array(stride(from: -1024, to: sound.last!.sample.decodeTime + 1, by: 1024)))
        for segment in segments.dropFirst() {
            let first = segment.audio.first!.sample.decodeTime
            #expect(first >= segment.start * 1600 && first - 1024 < segment.start * 1600, "audio opens its segment at its start")
        }
        #expect(zip(sound, sound.dropFirst()).allSatisfy { $0.sample.decodeTime + $0.sample.duration == $1.sample.decodeTime })
        #expect(segments.allSatisfy { !$0.followsGap })
    }

    /// Where a boundary falls between pictures (29.97 fps) the segment ends at the first picture past it.
    @Test func ntscSegmentsEndAtThePictureAfterTheBoundary() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 6, videoTimeBase: TimeBase(1001, 30000), audioTimeBase: nil)
        var done: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<400 {
            let key = [0, 180, 360].contains(frame)
            done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: key), frame)
        }
        done += segmenter.finish()
        #expect(done.map { $0.video.count } == [180, 180, 40])
        #expect(abs(done[0].duration - 6.006) < 1e-9)
    }

    /// A keyframe that comes late (a missing boundary keyframe) ends the segment there, not before; the grid
    /// stays put for the next one.
    @Test func aLateKeyframeMakesALongerSegment() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 2, videoTimeBase: TimeBase(1, 30), audioTimeBase: nil)
        var done: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<200 {
            done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: [0, 75, 120, 180].contains(frame)), frame)
        }
        done += segmenter.finish()
        #expect(done.map { $0.video.count } == [75, 45, 60, 20])
    }

    /// A gap (the stream fell behind): what was held goes out, the next segment starts at the next keyframe
    /// and is marked; audio alone is cut at its own packets.
    @Test func gapsAndAudioOnly() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 6, videoTimeBase: TimeBase(1, 30), audioTimeBase: nil)
        var done: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<100 { done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: frame % 60 == 0), frame) }
        done += segmenter.markGap()
        for frame in 150..<200 { done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: frame == 150), frame) }
        done += segmenter.finish()
        #expect(done.map { $0.video.first!.payload } == [0, 150])
        #expect(done.map(\.followsGap) == [false, true])
        #expect(abs(done[0].duration - 100.0 / 30) < 1e-9)

        var sound = LiveSegmenter<Int>(segmentDuration: 1, videoTimeBase: nil, audioTimeBase: TimeBase(1, 48000))
        var cut: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<100 { cut += sound.addAudio(Sample(decodeTime: Int64(frame) * 1024, duration: 1024, size: 1, isKeyframe: true), frame) }
        cut += sound.finish()
        #expect(cut.map { $0.audio.count } == [47, 47, 6])
        #expect(abs(cut[0].duration - 47 * 1024 / 48000.0) < 1e-9)
    }

    /// Audio that stops (its track ended early) does not hold the pictures' segments back for ever.
    @Test func videoGoesOnWhenAudioStops() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 2, videoTimeBase: TimeBase(1, 30), audioTimeBase: TimeBase(1, 48000))
        var done: [LiveSegmenter<Int>.Piece] = []
        _ = segmenter.addAudio(Sample(decodeTime: 0, duration: 1024, size: 1, isKeyframe: true), -1)
        for frame in 0..<300 { done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: frame % 60 == 0), frame) }
        #expect(done.count == 4 - segmenter.closedPieceLimit, "at most \(segmenter.closedPieceLimit) segments wait for audio")
        #expect(done.first?.audio.count == 1, "the early audio opens the first segment")
    }

    /// Low-Latency HLS: half-second parts, exact to the picture (B-frames decode ahead; a part ends at the
    /// first picture shown at or past its boundary), twelve to a 6 s segment; a part is independent where it
    /// starts at a keyframe (every 2 s); every packet once, audio in the part its start falls in.
    @Test(arguments: [0, 15, -3] as [Int64])
    func partsAreExactAndMakeUpTheirSegments(lead: Int64) {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 6, partDuration: 0.5, videoTimeBase: TimeBase(1, 30),
                                           audioTimeBase: TimeBase(1, 48000))
        #expect(segmenter.partTarget == 0.5)
        let parts = LiveSegmenterTests.run(&segmenter, frames: 600, lead: lead)
        #expect(parts.count == 40)
        #expect(parts.allSatisfy { abs($0.duration - 0.5) < 1e-9 })
        #expect(parts.indices.filter { parts[$0].startsSegment } == [0, 12, 24, 36])
        #expect(parts.indices.filter { parts[$0].endsSegment } == [11, 23, 35, 39])
        #expect(parts.indices.filter { parts[$0].isIndependent } == Array(stride(from: 0, to: 40, by: 4)))
        #expect(parts.map(\.video.count).reduce(0, +) == 600)
        let all = parts.flatMap(\.video)
        #expect(all.map(\.payload) == Array(0..<600))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sample.decodeTime + $0.sample.duration == $1.sample.decodeTime })
        let sound = parts.flatMap(\.audio)
        #expect(zip(sound, sound.dropFirst()).allSatisfy { $0.sample.decodeTime + $0.sample.duration == $1.sample.decodeTime })
        for part in parts.dropFirst() {
            guard let first = part.audio.first?.sample.decodeTime else { continue }
            #expect(first >= part.start * 1600 && first - 1024 < part.start * 1600, "audio opens its part at its start")
        }
        #expect(parts.dropFirst().dropLast().allSatisfy { (23...24).contains($0.audio.count) }, "\(parts.map(\.audio.count))")
    }

    /// Part targets: whole frame slots at 29.97 fps (0.5 s is 15 of them, 0.5005 s); audio alone ends a part
    /// at the first AAC frame at or past its boundary.
    @Test func partTargets() {
        let ntsc = LiveSegmenter<Int>(segmentDuration: 6, partDuration: 0.5, videoTimeBase: TimeBase(1001, 30000), audioTimeBase: nil)
        #expect(abs(ntsc.partTarget! - 15 * 1001 / 30000.0) < 1e-12)
        var sound = LiveSegmenter<Int>(segmentDuration: 2, partDuration: 0.5, videoTimeBase: nil, audioTimeBase: TimeBase(1, 48000))
        var cut: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<200 { cut += sound.addAudio(Sample(decodeTime: Int64(frame) * 1024, duration: 1024, size: 1, isKeyframe: true), frame) }
        cut += sound.finish()
        // RFC 8216bis: a part lasts at most the part target, and at least 85 % of it unless it ends its segment.
        #expect(cut.allSatisfy { $0.duration <= sound.partTarget! && ($0.endsSegment || $0.duration >= 0.85 * sound.partTarget!) })
        #expect(cut.map(\.audio.count).reduce(0, +) == 200)
        #expect(cut.filter(\.endsSegment).count == 3)
        #expect(LiveSegmenter<Int>(segmentDuration: 6, videoTimeBase: TimeBase(1, 30), audioTimeBase: nil).partTarget == nil)
    }

    /// A segment whose keyframe is late keeps being cut into parts on the same grid; the keyframe then ends it.
    @Test func partsGoOnPastALateKeyframe() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 2, partDuration: 0.5, videoTimeBase: TimeBase(1, 30), audioTimeBase: nil)
        var done: [LiveSegmenter<Int>.Piece] = []
        for frame in 0..<120 {
            done += segmenter.addVideo(Sample(decodeTime: Int64(frame), duration: 1, size: 1, isKeyframe: [0, 70].contains(frame)), frame)
        }
        done += segmenter.finish()
        #expect(done.map { $0.video.count } == [15, 15, 15, 15, 10, 15, 15, 15, 5])
        #expect(done.map(\.endsSegment) == [false, false, false, false, true, false, false, false, true])
        #expect(done.map(\.isIndependent) == [true, false, false, false, false, true, false, false, false])
    }

    /// The stream ends just after a part began at a B-frame (shown before the slot it is decoded in): the
    /// last part still has a length, on the decode clock the cuts are made on (a CI run once ended a stream
    /// there and wrote a part of 0 s).
    @Test func aLastPartBegunByABFrameHasALength() {
        var segmenter = LiveSegmenter<Int>(segmentDuration: 1, partDuration: 2.0 / 30, videoTimeBase: TimeBase(1, 30), audioTimeBase: nil)
        // I P B in decode order: pts 0 3 1, dts -2 -1 0 (x264's two-frame delay).
        let pictures: [(pts: Int64, dts: Int64, key: Bool)] = [(0, -2, true), (3, -1, false), (1, 0, false)]
        var done: [LiveSegmenter<Int>.Piece] = []
        for (index, picture) in pictures.enumerated() {
            done += segmenter.addVideo(Sample(decodeTime: picture.dts, presentationOffset: picture.pts - picture.dts, duration: 1, size: 1,
                                              isKeyframe: picture.key), index)
        }
        done += segmenter.finish()
        #expect(done.map(\.video.count) == [2, 1])
        #expect(done.allSatisfy { $0.duration > 0 }, "\(done.map(\.duration))")
        #expect(abs(done.map(\.duration).reduce(0, +) - 3.0 / 30) < 1e-9)
    }
}
