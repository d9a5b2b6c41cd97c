import QuickTime

/// How a trim cuts a video track, from its samples alone (decode order, times in the track's ticks): which
/// pictures are kept, which groups of pictures are copied packet for packet, and which parts are decoded and
/// encoded again.
///
/// The kept pictures are those shown from `from` to `to` on the track's presentation timeline (the first
/// picture shown at 0): the first is the picture on screen at `from` (the last one presented at or before
/// it), the last is the last one presented before `to`. A group of pictures is a keyframe and the samples
/// decoded after it up to the next keyframe; it is *closed* when the pictures decoded in it are exactly those
/// shown from its keyframe to the next keyframe (x264's and Reel's x265 groups are). With closed groups:
/// - `smart`: the group holding the first picture is decoded and encoded again from that picture to its end
///   (`head`; nothing when the first picture is the group's keyframe), the group holding the last picture from
///   its start to that picture (`tail`; nothing when the last picture ends its group), and the groups between
///   are copied (`copied`). When both ends fall in one group, that group alone is encoded again.
/// - `exact`: every kept picture is encoded again (one part, decoded from the first group's keyframe).
/// - `keyframes`: whole groups copied, from the keyframe at or before `from` to the end of the group holding
///   the last picture; inexact, and the plan says which pictures that keeps.
/// An open group anywhere the cut needs a clean start (leading pictures shown before their keyframe, which
/// refer to the group before) makes a smart cut an exact one, said in `note`.
struct TrimPlan: Equatable {
    typealias Mode = TrimMode

    /// Pictures decoded and encoded again: the decode-order samples to decode (from a keyframe), and the
    /// presentation times of the first and last picture of them that are kept.
    struct Part: Equatable {
        var decoded: Range<Int>
        var firstKept: Int64
        var lastKept: Int64
    }

    enum Failure: Error, Equatable {
        /// No picture is shown from `from` to `to` (from ≥ to, or both past the end): what the track holds.
        case emptySpan(trackEnd: Int64)
        case noPictures
        /// The first sample is not a keyframe (nothing before it can be decoded).
        case noKeyframeAtStart
    }

    let mode: Mode
    /// Presentation times (ticks, from the first picture shown) of the first and last kept picture, and the
    /// end of the last one (its presentation time plus its duration on screen).
    let firstPicture: Int64
    let lastPicture: Int64
    let end: Int64
    let pictureCount: Int
    let head: Part?
    let copied: Range<Int>?
    let tail: Part?
    /// Why the plan is not the mode asked for (an open group made a smart cut exact).
    let note: String?

    init(samples: [Sample], from: Int64, to: Int64, mode: Mode) throws(Failure) {
        guard !samples.isEmpty else { throw .noPictures }
        guard samples[0].isKeyframe else { throw .noKeyframeAtStart }
        let origin = samples.map(\.presentationTime).min()!
        let shown = samples.indices.sorted { samples[$0].presentationTime < samples[$1].presentationTime }
        let times = shown.map { samples[$0].presentationTime - origin }
        // Each picture is on screen until the next one is presented (the last: for its duration).
        let trackEnd = times.last! + max(samples[shown.last!].duration, 1)
        guard from < to, from < trackEnd else { throw .emptySpan(trackEnd: trackEnd) }
        let firstShown = max(0, (times.lastIndex { $0 <= from }) ?? 0)
        guard let lastShown = times.lastIndex(where: { $0 < to }), lastShown >= firstShown else { throw .emptySpan(trackEnd: trackEnd) }

        let groups = TrimPlan.groups(samples)
        let keyTimes = groups.map { samples[$0.lowerBound].presentationTime - origin }
        func group(at time: Int64) -> Int { (keyTimes.lastIndex { $0 <= time }) ?? 0 }
        let first = group(at: times[firstShown]), last = group(at: times[lastShown])
        func closed(_ index: Int) -> Bool {
            guard groups.indices.contains(index) else { return true }
            let start = keyTimes[index], next = index + 1 < keyTimes.count ? keyTimes[index + 1] : Int64.max
            return groups[index].allSatisfy { (start..<next).contains(samples[$0].presentationTime - origin) }
        }
        func endOfShown(_ index: Int) -> Int64 {
            index + 1 < times.count ? times[index + 1] : trackEnd
        }

        var chosen = mode
        var note: String? = nil
        if mode == .smart, !(first...(last + 1)).allSatisfy(closed) {
            chosen = .exact
            note = "open groups of pictures (pictures shown before their keyframe): every kept picture is encoded again"
        }
        switch chosen {
        case .keyframes:
            let start = keyTimes[first]
            let stop = last + 1 < keyTimes.count ? keyTimes[last + 1] : trackEnd
            let kept = times.indices.filter { times[$0] >= start && times[$0] < stop }
            firstPicture = start
            lastPicture = times[kept.last!]
            end = endOfShown(kept.last!)
            pictureCount = kept.count
            head = nil
            tail = nil
            copied = groups[first].lowerBound..<groups[last].upperBound
        case .exact:
            firstPicture = times[firstShown]
            lastPicture = times[lastShown]
            end = endOfShown(lastShown)
            pictureCount = lastShown - firstShown + 1
            head = Part(decoded: groups[first].lowerBound..<groups[last].upperBound, firstKept: firstPicture + origin,
                        lastKept: lastPicture + origin)
            tail = nil
            copied = nil
        case .smart:
            firstPicture = times[firstShown]
            lastPicture = times[lastShown]
            end = endOfShown(lastShown)
            pictureCount = lastShown - firstShown + 1
            let startsGroup = times[firstShown] == keyTimes[first]
            let endsGroup = lastShown + 1 == times.count || last + 1 < keyTimes.count && times[lastShown + 1] == keyTimes[last + 1]
            var copyFrom = first, copyThrough = last
            var headPart: Part? = nil, tailPart: Part? = nil
            if !startsGroup {
                let lastOfGroup = first == last ? lastShown : (times.lastIndex { $0 < keyTimes[first + 1] })!
                headPart = Part(decoded: groups[first], firstKept: times[firstShown] + origin, lastKept: times[lastOfGroup] + origin)
                copyFrom = first + 1
            }
            if !endsGroup && !(first == last && headPart != nil) {
                tailPart = Part(decoded: groups[last], firstKept: max(keyTimes[last], times[firstShown]) + origin,
                                lastKept: times[lastShown] + origin)
                copyThrough = last - 1
            } else if first == last && headPart != nil {
                copyThrough = last - 1
            }
            head = headPart
            tail = tailPart
            copied = copyFrom <= copyThrough ? groups[copyFrom].lowerBound..<groups[copyThrough].upperBound : nil
        }
        self.mode = chosen
        self.note = note
    }

    /// The groups of pictures: decode-order ranges, each from a keyframe to the next.
    static func groups(_ samples: [Sample]) -> [Range<Int>] {
        var starts = samples.indices.filter { samples[$0].isKeyframe }
        if starts.first != 0 { starts.insert(0, at: 0) }
        return starts.indices.map { starts[$0]..<(($0 + 1 < starts.count) ? starts[$0 + 1] : samples.count) }
    }
}
