import QuickTime

/// Cuts a stream of encoded packets into HLS media segments, and with `partDuration` each segment into
/// partial segments (Low-Latency HLS parts): a segment starts at the first video keyframe at or past each
/// multiple of the segment duration (the movie forces a keyframe there, so segments are exact to the
/// picture); a part at the first picture at or past each multiple of the part duration from its segment's
/// start (any picture: a part need not be independent). Each piece takes the audio packets that start before
/// its end. The video decides (the clock track); audio alone is cut at its first packet past each multiple.
/// Pure bookkeeping over sample times, unit-tested in LiveSegmenterTests; `Payload` is the packet (an Int in
/// the tests).
///
/// A piece is complete once the next one's first picture has come and audio has passed its end (audio is
/// encoded only as far as the pictures sent, so it trails the video by a frame or two). Each sample's
/// duration is the distance to the next one's decode time, the last one's its own: the pieces' decode
/// times run on without a gap.
struct LiveSegmenter<Payload> {
    struct Entry {
        /// In the track's own time base (video: the movie's frame slots; audio: samples).
        var sample: Sample
        var payload: Payload
    }

    /// A whole media segment, or (with parts) a partial segment of one: the first piece of a segment
    /// `startsSegment`, its last `endsSegment`, and without parts each piece is both.
    struct Piece {
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
        var startsSegment = true
        var endsSegment = true
        /// It starts with a keyframe (or holds audio alone): a player can start decoding at it.
        var isIndependent: Bool { video.first?.sample.isKeyframe ?? !audio.isEmpty }
    }

    let segmentDuration: Double
    let videoTimeBase: TimeBase?
    let audioTimeBase: TimeBase?
    /// A part's length in the clock track's ticks (a whole number of frame slots), nil without parts.
    let partTicks: Int64?
    /// Pieces closed on video that may wait for their audio (two segments, or a second of parts); past this
    /// many, audio is not coming (it ended early) and the oldest goes out as it is.
    let closedPieceLimit: Int

    private var origin: Int64?
    private var nextBoundaryIndex = 1
    /// The current segment's start, and the parts begun in it.
    private var segmentStart: Int64 = 0
    private var partsBegun = 0
    private var current: Piece?
    private var closed: [Piece] = []
    /// The last keyframe's presentation offset: how far the pictures' decode times run behind (B-frames).
    private var decodeDelay: Int64 = 0
    private var gapPending = false
    /// Audio that came before the first picture (the encoders' delays differ): it opens the first segment.
    private var early: [Entry] = []
    /// Audio past the current segment's next boundary, waiting for the keyframe that cuts there.
    private var ahead: [Entry] = []
    /// Early audio kept at most (10 s at 48 kHz): a stream whose pictures never come costs no more.
    static var earlyAudioLimit: Int { 470 }

    /// `gridOrigin`: where the segment grid starts (the clock track's ticks); nil starts it at the first
    /// piece (a stream that joins a running movie passes the movie's start, where its keyframes are forced).
    init(segmentDuration: Double, partDuration: Double? = nil, videoTimeBase: TimeBase?, audioTimeBase: TimeBase?,
         gridOrigin: Int64? = nil) {
        precondition(videoTimeBase != nil || audioTimeBase != nil, "a live stream has a track")
        origin = gridOrigin
        self.segmentDuration = segmentDuration
        self.videoTimeBase = videoTimeBase
        self.audioTimeBase = audioTimeBase
        let clock = videoTimeBase ?? audioTimeBase!
        partTicks = partDuration.map { max(1, Int64(($0 / clock.secondsPerTick).rounded())) }
        closedPieceLimit = partTicks.map { max(2, Int((1 / (Double($0) * clock.secondsPerTick)).rounded(.up)) + 1) } ?? 2
    }

    private var clock: TimeBase { videoTimeBase ?? audioTimeBase! }

    /// EXT-X-PART-INF's PART-TARGET: the longest a part can be. Video parts are whole frame slots; a part of
    /// audio alone ends at the first AAC frame (1,024 samples) at or past its boundary.
    var partTarget: Double? {
        partTicks.map { Double($0 + (videoTimeBase == nil ? 1023 : 0)) * clock.secondsPerTick }
    }

    /// The clock time where the current part ends at the earliest (nil without parts).
    private var partBoundary: Int64? { partTicks.map { segmentStart + Int64(partsBegun) * $0 } }

    /// Where the next piece can begin: the next part's boundary or the next segment's, whichever is first.
    private var nextCut: Int64 { min(partBoundary ?? .max, boundary(nextBoundaryIndex)) }

    /// The clock time (ticks) of boundary `index` (the first picture at or past `index` × the duration).
    private func boundary(_ index: Int) -> Int64 {
        let ticks = Double(index) * segmentDuration * Double(clock.denominator) / Double(clock.numerator)
        return origin! + Int64((ticks - 1e-6).rounded(.up))
    }

    /// A video packet, in decode order; returns the pieces it completed.
    mutating func addVideo(_ sample: Sample, _ payload: Payload) -> [Piece] {
        addClock(Entry(sample: sample, payload: payload), isVideo: true)
    }

    /// An audio packet, in order; returns the pieces it completed.
    mutating func addAudio(_ sample: Sample, _ payload: Payload) -> [Piece] {
        let entry = Entry(sample: sample, payload: payload)
        guard videoTimeBase != nil else { return addClock(entry, isVideo: false) }
        var done: [Piece] = []
        // Audio that starts at or past a closed piece's end completes it; earlier audio belongs to it.
        while let first = closed.first, let end = first.end, !startsBefore(audio: sample, videoTime: end) {
            done.append(complete(closed.removeFirst(), nextAudio: sample.decodeTime))
        }
        if !closed.isEmpty {
            closed[0].audio.append(entry)
        } else if current == nil {
            early.append(entry)
            if early.count > LiveSegmenter.earlyAudioLimit { early.removeFirst() }
        } else if ahead.isEmpty && startsBefore(audio: sample, videoTime: nextCut) {
            current!.audio.append(entry)
        } else {
            // Past the next boundary: it belongs to whichever piece the picture there begins (audio may run
            // ahead of pictures still inside the video encoder).
            ahead.append(entry)
        }
        return done
    }

    private mutating func addClock(_ entry: Entry, isVideo: Bool) -> [Piece] {
        let startsHere = entry.sample.isKeyframe || !isVideo
        if isVideo && entry.sample.isKeyframe { decodeDelay = entry.sample.presentationOffset }
        // Pictures are cut in decode order: a keyframe where it is shown, any other picture where it is
        // decoded (moved onto the presentation clock by the keyframe's delay), so that parts of a stream with
        // B-frames are whole frame slots too.
        let time = isVideo ? entry.sample.decodeTime + decodeDelay : entry.sample.presentationTime
        var done: [Piece] = []
        if current == nil {
            guard startsHere else { return [] }  // a segment starts with a keyframe
            if origin == nil { origin = time }
            while boundary(nextBoundaryIndex) <= time { nextBoundaryIndex += 1 }
            current = Piece(start: time, followsGap: gapPending)
            current!.audio = early
            early.removeAll()
            gapPending = false
            segmentStart = time
            partsBegun = 1
        } else if startsHere && time >= boundary(nextBoundaryIndex) || partBoundary.map({ time >= $0 }) == true {
            let newSegment = startsHere && time >= boundary(nextBoundaryIndex)
            var ending = current!
            ending.end = time
            ending.endsSegment = newSegment
            if isVideo, var last = ending.video.popLast() {
                last.sample.duration = entry.sample.decodeTime - last.sample.decodeTime
                ending.video.append(last)
            }
            if newSegment {
                while boundary(nextBoundaryIndex) <= time { nextBoundaryIndex += 1 }
                segmentStart = time
                partsBegun = 1
            } else {
                while let next = partBoundary, next <= time { partsBegun += 1 }
            }
            current = Piece(start: time, startsSegment: newSegment)
            // Audio that came ahead: before the cut it is the ending piece's; from it, the new one's (up to
            // its own next boundary).
            let split = ahead.firstIndex { !startsBefore(audio: $0.sample, videoTime: time) } ?? ahead.endIndex
            ending.audio += ahead[..<split]
            var rest = Array(ahead[split...])
            let within = rest.firstIndex { !startsBefore(audio: $0.sample, videoTime: nextCut) } ?? rest.endIndex
            current!.audio = Array(rest[..<within])
            rest.removeFirst(within)
            ahead = rest
            let nextAudio = isVideo ? (current!.audio.first ?? ahead.first)?.sample.decodeTime : entry.sample.decodeTime
            if isVideo && audioTimeBase != nil && nextAudio == nil {
                closed.append(ending)
                if closed.count > closedPieceLimit { done.append(complete(closed.removeFirst(), nextAudio: nil)) }
            } else {
                done.append(complete(ending, nextAudio: nextAudio))
            }
        }
        if isVideo { current!.video.append(entry) } else { current!.audio.append(entry) }
        return done
    }

    /// Packets were lost (the live output fell behind): what is held goes out as it is, and the next
    /// segment starts at the next keyframe, marked as following a gap.
    mutating func markGap() -> [Piece] {
        let done = finish()
        gapPending = true
        return done
    }

    /// The stream ended: every piece held, the last one ending its segment with its last picture (or sample).
    mutating func finish() -> [Piece] {
        var done = closed.map { complete($0, nextAudio: nil) }
        closed.removeAll()
        current?.audio += ahead
        ahead.removeAll()
        if var last = current {
            // On the clock the cuts were made on: pictures by decode time (shifted by the keyframe's delay), so a
            // last part that a B-frame began (shown before its decode slot) still has its length.
            last.end = videoTimeBase != nil
                ? last.video.map { $0.sample.decodeTime + decodeDelay + $0.sample.duration }.max() ?? last.start
                : last.audio.map { $0.sample.presentationTime + $0.sample.duration }.max() ?? last.start
            last.endsSegment = true
            if !last.video.isEmpty || !last.audio.isEmpty { done.append(complete(last, nextAudio: nil)) }
        }
        current = nil
        early.removeAll()
        return done
    }

    /// Sets the piece's audio durations (each to the next one's decode time) and its length.
    private func complete(_ segment: Piece, nextAudio: Int64?) -> Piece {
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
