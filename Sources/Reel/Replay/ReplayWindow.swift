import QuickTime

/// The encoded packets a replay buffer holds and what a save takes of them. Pure bookkeeping over sample
/// times, unit-tested in ReplayWindowTests (`Payload` is the packet; an Int in the tests).
///
/// Video is kept in whole groups of pictures from a keyframe: the oldest group goes once the groups after it
/// still hold `keepSeconds`, or once the bytes pass `maxBytes` (the newest group always stays). Sound is kept
/// from one AAC frame before the first kept picture (the frame a decoder needs to prime its first presented
/// one). Without video, sound is kept by time alone.
///
/// A save (`cut`) starts at the latest keyframe that still gives the seconds asked (at most one group longer,
/// or all there is) and ends on a decode-order boundary where every picture shown up to it is in the cut
/// (with B-frames a picture decoded later is shown earlier): the smallest such boundary past the picture of
/// the request, so the saved pictures run without a hole up to it.
struct ReplayWindow<Payload> {
    struct Entry {
        /// In the track's time base (video: the movie's frame slots; audio: samples).
        var sample: Sample
        var payload: Payload
    }

    /// What a save takes: entries in decode order, times in each track's own base.
    struct Cut {
        var video: [Entry]
        var audio: [Entry]
        /// The first picture's presentation time (or without video: the first presented sample), in the
        /// clock track's ticks; the saved movie's zero.
        var start: Int64
        /// Where the last picture shown ends (exclusive), in the clock track's ticks.
        var end: Int64
        /// `start` in audio ticks: sound before it is priming, trimmed by the movie's edit list.
        var audioStart: Int64
        /// The span from `start` to `end`.
        var seconds: Double
    }

    let keepSeconds: Double
    let maxBytes: Int
    let videoTimeBase: TimeBase?
    let audioTimeBase: TimeBase?

    private(set) var video: [Entry] = []
    private(set) var audio: [Entry] = []
    private(set) var bytes = 0
    /// The stream has ended: its last pictures are complete (nothing decoded later will come).
    private(set) var ended = false

    init(keepSeconds: Double, maxBytes: Int, videoTimeBase: TimeBase?, audioTimeBase: TimeBase?) {
        precondition(videoTimeBase != nil || audioTimeBase != nil, "a replay buffer has a track")
        self.keepSeconds = keepSeconds
        self.maxBytes = maxBytes
        self.videoTimeBase = videoTimeBase
        self.audioTimeBase = audioTimeBase
    }

    /// Seconds of pictures (or without video, of sound) held: from the first keyframe to the newest end.
    var heldSeconds: Double {
        if let videoTimeBase {
            guard let first = video.first else { return 0 }
            return Double(newestVideoEnd - first.sample.presentationTime) * videoTimeBase.secondsPerTick
        }
        guard let audioTimeBase, let first = audio.first, let last = audio.last else { return 0 }
        return Double(last.sample.presentationTime + last.sample.duration - first.sample.presentationTime) * audioTimeBase.secondsPerTick
    }

    /// Takes a video packet in decode order; returns the payloads let go (pictures before the first
    /// keyframe, groups past the window).
    mutating func appendVideo(_ sample: Sample, _ payload: Payload) -> [Payload] {
        guard !video.isEmpty || sample.isKeyframe else { return [payload] }
        video.append(Entry(sample: sample, payload: payload))
        newestVideoEnd = max(newestVideoEnd, sample.presentationTime + max(sample.duration, 1))
        bytes += sample.size
        return evict()
    }

    /// Takes an audio packet in order; returns the payloads let go.
    mutating func appendAudio(_ sample: Sample, _ payload: Payload) -> [Payload] {
        audio.append(Entry(sample: sample, payload: payload))
        bytes += sample.size
        return evict()
    }

    /// Packets were lost before what comes next: what is held no longer runs on into it. Returns every payload.
    mutating func clear() -> [Payload] {
        defer {
            video = []
            audio = []
            bytes = 0
            newestVideoEnd = Int64.min
        }
        return video.map(\.payload) + audio.map(\.payload)
    }

    /// Nothing more will come: the last pictures are complete.
    mutating func end() { ended = true }

    /// The end of the newest picture shown, in video ticks (pictures decoded after it may still come).
    private var newestVideoEnd = Int64.min

    private mutating func evict() -> [Payload] {
        var gone: [Payload] = []
        if let videoTimeBase {
            let keep = Int64((keepSeconds / videoTimeBase.secondsPerTick).rounded(.up))
            let newest = newestVideoEnd
            while let second = video.indices.dropFirst().first(where: { video[$0].sample.isKeyframe }),
                  newest - video[second].sample.presentationTime >= keep || bytes > maxBytes {
                gone += video[..<second].map(\.payload)
                bytes -= video[..<second].reduce(0) { $0 + $1.sample.size }
                video.removeFirst(second)
            }
        }
        if let audioTimeBase {
            // Sound is kept from one frame before the one that covers the first picture (its priming); without
            // pictures yet, by time as sound alone is.
            let start: Int64
            if let first = video.first, let videoTimeBase {
                start = videoTimeBase.convert(first.sample.presentationTime, to: audioTimeBase, rounding: .down)
            } else if let last = audio.last {
                let keep = Int64((keepSeconds / audioTimeBase.secondsPerTick).rounded(.up))
                start = last.sample.presentationTime + last.sample.duration - keep
            } else {
                start = 0
            }
            var drop = 0
            while audio.count - drop > 2, audio[drop + 2].sample.presentationTime <= start { drop += 1 }
            // Sound alone is bounded in bytes too (with pictures, the groups are).
            while videoTimeBase == nil, audio.count - drop > 2, bytes - audio[..<drop].reduce(0, { $0 + $1.sample.size }) > maxBytes { drop += 1 }
            if drop > 0 {
                gone += audio[..<drop].map(\.payload)
                bytes -= audio[..<drop].reduce(0) { $0 + $1.sample.size }
                audio.removeFirst(drop)
            }
        }
        return gone
    }

    /// The last `seconds` (nil: all held) up to the picture presented at `through` (video ticks; nil: as far
    /// as complete pictures go). Nil while the pictures up to `through`, or the sound up to their end, are
    /// not all out of the encoders yet (`final`: take what there is).
    func cut(seconds: Double?, through: Int64?, final: Bool = false) -> Cut? {
        guard let videoTimeBase else { return audioCut(seconds: seconds) }
        guard !video.isEmpty, let end = closedEnd(through: final ? nil : through) else { return nil }
        let endTime = end.time
        var first = 0
        if let seconds {
            let target = endTime - Int64((seconds / videoTimeBase.secondsPerTick).rounded())
            for index in 0..<end.index where video[index].sample.isKeyframe && video[index].sample.presentationTime <= target {
                first = index
            }
        }
        let start = video[first].sample.presentationTime
        var cut = Cut(video: Array(video[first..<end.index]), audio: [], start: start, end: endTime, audioStart: 0,
                      seconds: Double(endTime - start) * videoTimeBase.secondsPerTick)
        if let audioTimeBase {
            let audioStart = videoTimeBase.convert(start, to: audioTimeBase, rounding: .down)
            let audioEnd = videoTimeBase.convert(endTime, to: audioTimeBase, rounding: .up)
            let heldEnd = audio.last.map { $0.sample.presentationTime + $0.sample.duration } ?? Int64.min
            guard final || ended || heldEnd >= audioEnd else { return nil }
            cut.audioStart = audioStart
            cut.audio = audioEntries(from: audioStart, before: audioEnd)
        }
        return cut
    }

    /// Everything held from the latest keyframe at or before `target` (video ticks; the oldest held when none
    /// is), pictures still incomplete at the end included: the start of a movie that goes on with the packets
    /// to come (a triggered movie's pre-roll). Nil before the first keyframe (or without video, before sound).
    func tail(from target: Int64) -> Cut? {
        guard let videoTimeBase else {
            guard !audio.isEmpty else { return nil }
            return audioCut(from: audio.lastIndex { $0.sample.presentationTime <= target } ?? 0)
        }
        guard !video.isEmpty else { return nil }
        let first = video.indices.last { video[$0].sample.isKeyframe && video[$0].sample.presentationTime <= target } ?? 0
        let start = video[first].sample.presentationTime
        var cut = Cut(video: Array(video[first...]), audio: [], start: start, end: newestVideoEnd, audioStart: 0,
                      seconds: Double(newestVideoEnd - start) * videoTimeBase.secondsPerTick)
        if let audioTimeBase {
            cut.audioStart = videoTimeBase.convert(start, to: audioTimeBase, rounding: .down)
            let covering = audio.lastIndex { $0.sample.presentationTime <= cut.audioStart } ?? 0
            cut.audio = Array(audio[max(0, covering - 1)...])
        }
        return cut
    }

    /// The sound from one frame before the one covering `start` (priming) to the frames starting before `end`.
    private func audioEntries(from start: Int64, before end: Int64) -> [Entry] {
        let covering = audio.lastIndex { $0.sample.presentationTime <= start } ?? 0
        return audio[max(0, covering - 1)...].filter { $0.sample.presentationTime < end }
    }

    private func audioCut(seconds: Double?) -> Cut? {
        guard let audioTimeBase, let last = audio.last else { return nil }
        guard let seconds else { return audioCut(from: 0) }
        let target = last.sample.presentationTime + last.sample.duration - Int64((seconds / audioTimeBase.secondsPerTick).rounded())
        return audioCut(from: audio.lastIndex { $0.sample.presentationTime <= target } ?? 0)
    }

    /// Sound alone from frame `index` (at least the second held, so one frame before it primes the decoder) to
    /// the newest.
    private func audioCut(from index: Int) -> Cut? {
        guard let audioTimeBase, let last = audio.last else { return nil }
        let first = max(index, min(1, audio.count - 1))
        let start = audio[first].sample.presentationTime
        let end = last.sample.presentationTime + last.sample.duration
        return Cut(video: [], audio: Array(audio[max(0, first - 1)...]), start: start, end: end, audioStart: start,
                   seconds: Double(end - start) * audioTimeBase.secondsPerTick)
    }

    /// The first decode-order boundary after which every picture shown up to the newest one before it is
    /// there (nothing after it is shown earlier) and the pictures through `through` are in; nil `through`:
    /// the last such boundary. The boundary at the end counts once the stream has ended.
    private func closedEnd(through: Int64?) -> (index: Int, time: Int64)? {
        // The earliest presentation time from each index on.
        var laterMinimum = [Int64](repeating: Int64.max, count: video.count + 1)
        for index in video.indices.reversed() {
            laterMinimum[index] = min(laterMinimum[index + 1], video[index].sample.presentationTime)
        }
        var newest = Int64.min
        var newestEnd = Int64.min
        var found: (index: Int, time: Int64)?
        for index in video.indices {
            let sample = video[index].sample
            if sample.presentationTime > newest {
                newest = sample.presentationTime
                newestEnd = sample.presentationTime + max(sample.duration, 1)
            }
            let boundary = index + 1
            let closed = boundary < video.count ? newest < laterMinimum[boundary] : ended
            guard closed else { continue }
            // Where the newest picture shown ends (a picture after the boundary may start later: one decoded
            // after it, shown between, may still be in the encoder).
            found = (boundary, newestEnd)
            if let through, newest >= through { return found }
        }
        return through == nil ? found : nil
    }
}
