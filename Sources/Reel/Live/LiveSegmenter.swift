import QuickTime

/// Cuts a stream of encoded packets into HLS media segments: a segment starts at the first video keyframe
/// at or past each multiple of the segment duration (the movie forces a keyframe there, so segments are
/// exact to the picture), and takes the audio packets that start before its end. The video decides (the
/// clock track); audio alone is cut at its first packet past each multiple. Pure bookkeeping over sample
/// times, unit-tested in LiveSegmenterTests; `Payload` is the packet (an Int in the tests).
///
/// A segment is complete once the next one's keyframe has come and audio has passed its end (audio is
/// encoded only as far as the pictures sent, so it trails the video by a frame or two). Each sample's
/// duration is the distance to the next one's decode time, the last one's its own: the segments' decode
/// times run on without a gap.
struct LiveSegmenter<Payload> {
    struct Entry {
        /// In the track's own time base (video: the movie's frame slots; audio: samples).
        var sample: Sample
        var payload: Payload
    }

    struct Segment {
        var video: [Entry] = []
        var audio: [Entry] = []
        /// The clock track's presentation time of its first picture (or audio sample), in that track's ticks.
        var start: Int64
        /// Its length, exact to the picture: its end minus its start, in seconds.
        var duration: Double = 0
        /// Packets were lost before it.
        var followsGap = false
        /// The clock track's time where it ends (exclusive), once it is closed.
        var end: Int64? = nil
    }

    let segmentDuration: Double
    let videoTimeBase: TimeBase?
    let audioTimeBase: TimeBase?
    /// Segments closed on video that may wait for their audio; past this many, audio is not coming (it
    /// ended early) and the oldest goes out as it is.
    static var closedSegmentLimit: Int { 2 }

    private var origin: Int64?
    private var nextBoundaryIndex = 1
    private var current: Segment?
    private var closed: [Segment] = []
    private var gapPending = false
    /// Audio that came before the first picture (the encoders' delays differ): it opens the first segment.
    private var early: [Entry] = []
    /// Audio past the current segment's next boundary, waiting for the keyframe that cuts there.
    private var ahead: [Entry] = []
    /// Early audio kept at most (10 s at 48 kHz): a stream whose pictures never come costs no more.
    static var earlyAudioLimit: Int { 470 }

    init(segmentDuration: Double, videoTimeBase: TimeBase?, audioTimeBase: TimeBase?) {
        precondition(videoTimeBase != nil || audioTimeBase != nil, "a live stream has a track")
        self.segmentDuration = segmentDuration
        self.videoTimeBase = videoTimeBase
        self.audioTimeBase = audioTimeBase
    }

    private var clock: TimeBase { videoTimeBase ?? audioTimeBase! }

    /// The clock time (ticks) of boundary `index` (the first picture at or past `index` × the duration).
    private func boundary(_ index: Int) -> Int64 {
        let ticks = Double(index) * segmentDuration * Double(clock.denominator) / Double(clock.numerator)
        return origin! + Int64((ticks - 1e-6).rounded(.up))
    }

    /// A video packet, in decode order; returns the segments it completed.
    mutating func addVideo(_ sample: Sample, _ payload: Payload) -> [Segment] {
        addClock(Entry(sample: sample, payload: payload), isVideo: true)
    }

    /// An audio packet, in order; returns the segments it completed.
    mutating func addAudio(_ sample: Sample, _ payload: Payload) -> [Segment] {
        let entry = Entry(sample: sample, payload: payload)
        guard videoTimeBase != nil else { return addClock(entry, isVideo: false) }
        var done: [Segment] = []
        // Audio that starts at or past a closed segment's end completes it; earlier audio belongs to it.
        while let first = closed.first, let end = first.end, !startsBefore(audio: sample, videoTime: end) {
            done.append(complete(closed.removeFirst(), nextAudio: sample.decodeTime))
        }
        if !closed.isEmpty {
            closed[0].audio.append(entry)
        } else if current == nil {
            early.append(entry)
            if early.count > LiveSegmenter.earlyAudioLimit { early.removeFirst() }
        } else if ahead.isEmpty && startsBefore(audio: sample, videoTime: boundary(nextBoundaryIndex)) {
            current!.audio.append(entry)
        } else {
            // Past the next boundary: it belongs to whichever segment the keyframe there begins (audio may
            // run ahead of pictures still inside the video encoder).
            ahead.append(entry)
        }
        return done
    }

    private mutating func addClock(_ entry: Entry, isVideo: Bool) -> [Segment] {
        let time = entry.sample.presentationTime
        var done: [Segment] = []
        if current == nil {
            guard entry.sample.isKeyframe || !isVideo else { return [] }  // a segment starts with a keyframe
            if origin == nil { origin = time }
            while boundary(nextBoundaryIndex) <= time { nextBoundaryIndex += 1 }
            current = Segment(start: time, followsGap: gapPending)
            current!.audio = early
            early.removeAll()
            gapPending = false
        } else if (entry.sample.isKeyframe || !isVideo) && time >= boundary(nextBoundaryIndex) {
            var ending = current!
            ending.end = time
            if isVideo, var last = ending.video.popLast() {
                last.sample.duration = entry.sample.decodeTime - last.sample.decodeTime
                ending.video.append(last)
            }
            while boundary(nextBoundaryIndex) <= time { nextBoundaryIndex += 1 }
            current = Segment(start: time)
            // Audio that came ahead: before the cut it is the ending segment's; from it, the new one's (up to
            // its own next boundary).
            let split = ahead.firstIndex { !startsBefore(audio: $0.sample, videoTime: time) } ?? ahead.endIndex
            ending.audio += ahead[..<split]
            var rest = Array(ahead[split...])
            let within = rest.firstIndex { !startsBefore(audio: $0.sample, videoTime: boundary(nextBoundaryIndex)) } ?? rest.endIndex
            current!.audio = Array(rest[..<within])
            rest.removeFirst(within)
            ahead = rest
            let nextAudio = isVideo ? (current!.audio.first ?? ahead.first)?.sample.decodeTime : entry.sample.decodeTime
            if isVideo && audioTimeBase != nil && nextAudio == nil {
                closed.append(ending)
                if closed.count > LiveSegmenter.closedSegmentLimit { done.append(complete(closed.removeFirst(), nextAudio: nil)) }
            } else {
                done.append(complete(ending, nextAudio: nextAudio))
            }
        }
        if isVideo { current!.video.append(entry) } else { current!.audio.append(entry) }
        return done
    }

    /// Packets were lost (the live output fell behind): what is held goes out as it is, and the next
    /// segment starts at the next keyframe, marked as following a gap.
    mutating func markGap() -> [Segment] {
        let done = finish()
        gapPending = true
        return done
    }

    /// The stream ended: every segment held, the last one ending with its last picture (or sample).
    mutating func finish() -> [Segment] {
        var done = closed.map { complete($0, nextAudio: nil) }
        closed.removeAll()
        current?.audio += ahead
        ahead.removeAll()
        if var last = current {
            let track = videoTimeBase != nil ? last.video : last.audio
            last.end = track.map { $0.sample.presentationTime + $0.sample.duration }.max() ?? last.start
            if !last.video.isEmpty || !last.audio.isEmpty { done.append(complete(last, nextAudio: nil)) }
        }
        current = nil
        early.removeAll()
        return done
    }

    /// Sets the segment's audio durations (each to the next one's decode time) and its length.
    private func complete(_ segment: Segment, nextAudio: Int64?) -> Segment {
        var segment = segment
        for index in segment.audio.indices.dropLast() {
            segment.audio[index].sample.duration = segment.audio[index + 1].sample.decodeTime - segment.audio[index].sample.decodeTime
        }
        if let nextAudio, let lastIndex = segment.audio.indices.last {
            segment.audio[lastIndex].sample.duration = nextAudio - segment.audio[lastIndex].sample.decodeTime
        }
        for index in segment.video.indices.dropLast() {
            segment.video[index].sample.duration = segment.video[index + 1].sample.decodeTime - segment.video[index].sample.decodeTime
        }
        segment.duration = Double(segment.end! - segment.start) * clock.secondsPerTick
        return segment
    }

    /// Whether an audio sample starts before `videoTime` (video ticks), compared exactly.
    private func startsBefore(audio sample: Sample, videoTime: Int64) -> Bool {
        guard let audioTimeBase, let videoTimeBase else { return false }
        let audioSide = Int64(sample.presentationTime) * Int64(audioTimeBase.numerator) * Int64(videoTimeBase.denominator)
        let videoSide = videoTime * Int64(videoTimeBase.numerator) * Int64(audioTimeBase.denominator)
        return audioSide < videoSide
    }
}
