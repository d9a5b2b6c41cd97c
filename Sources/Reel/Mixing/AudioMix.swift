/// Several sound inputs summed into one track, sample by sample on the session clock: each input (a lane)
/// hands in its samples at their session sample positions (after its own resampling and clock drift
/// correction), and a block is mixed once every lane has its samples for it. A lane that has ended adds
/// silence; with live inputs a lane more than `maximumLag` behind the others adds silence where it has
/// nothing (its samples that come later for a block already mixed are dropped), so one stalled microphone
/// never holds up the others. With `stacks` (separate tracks) the lanes are not summed but laid side by side,
/// lane i in channels i×channels ..< (i+1)×channels of the block, on the same timeline. Pure (no FFmpeg):
/// samples are planar Float arrays.
struct AudioMix {
    struct Lane {
        /// Position of the first waiting sample; nil before the lane's first samples.
        var start: Int64?
        var samples: [[Float]]
        var finished = false
        /// Linear gain (1 = as captured).
        var gain: Float

        var end: Int64? { start.map { $0 + Int64(samples.first?.count ?? 0) } }
    }

    let channels: Int
    let blockSize: Int
    /// Lanes side by side (one track each) instead of summed.
    let stacks: Bool
    /// Channels of a mixed block: `channels`, or with `stacks` every lane's.
    var blockChannels: Int { stacks ? channels * lanes.count : channels }
    /// Live inputs: samples a lane may trail the furthest lane by before it is mixed as silence.
    let maximumLag: Int64?
    private(set) var lanes: [Lane]
    /// Where the next block starts; nil before the first.
    private(set) var position: Int64?
    /// Samples dropped because they came after their block was mixed (a late lane).
    private(set) var lateSamples = 0

    init(gains: [Float], channels: Int, blockSize: Int, maximumLag: Int64?, stacks: Bool = false) {
        self.channels = channels
        self.stacks = stacks
        self.blockSize = blockSize
        self.maximumLag = maximumLag
        lanes = gains.map { Lane(start: nil, samples: Array(repeating: [], count: channels), gain: $0) }
    }

    /// Lane `index`'s samples (one array per channel, all of one length) from `at`. Samples for blocks already
    /// mixed are dropped (counted in `lateSamples`); a gap after the lane's last samples becomes silence; an
    /// overlap with them is dropped.
    mutating func add(lane index: Int, _ samples: [[Float]], at: Int64) {
        var samples = samples, at = at
        var count = samples.first?.count ?? 0
        func dropFirst(_ number: Int) {
            samples = samples.map { Array($0.dropFirst(number)) }
            at += Int64(number)
            count -= number
        }
        if let position, at < position {
            let late = Int(min(Int64(count), position - at))
            lateSamples += late
            dropFirst(late)
        }
        guard count > 0 else { return }
        if let end = lanes[index].end {
            if at > end {
                for channel in 0..<channels { lanes[index].samples[channel] += Array(repeating: 0, count: Int(at - end)) }
            } else if at < end {
                dropFirst(Int(min(Int64(count), end - at)))
                guard count > 0 else { return }
            }
        } else {
            lanes[index].start = at
        }
        for channel in 0..<channels { lanes[index].samples[channel] += samples[channel] }
    }

    mutating func finish(lane index: Int) { lanes[index].finished = true }

    /// Every lane finished and everything mixed.
    var isDone: Bool { lanes.allSatisfy { $0.finished && ($0.samples.first?.isEmpty ?? true) } }

    /// The next mixed block (its position and planar samples, `blockChannels` of them, before any limiting)
    /// once it is due; the last
    /// one, when every lane has finished, may be shorter.
    mutating func nextBlock() -> (position: Int64, samples: [[Float]])? {
        let started = lanes.compactMap(\.start)
        guard !started.isEmpty else { return nil }
        // The first block waits for every lane to start (live: up to the lag), then starts at the earliest.
        let start = position ?? started.min()!
        if position == nil && started.count < lanes.count && !lanes.allSatisfy({ $0.start != nil || $0.finished }) {
            guard let maximumLag, let furthest = lanes.compactMap(\.end).max(), furthest - start >= maximumLag else { return nil }
        }
        let furthest = lanes.compactMap(\.end).max() ?? start
        var end = start + Int64(blockSize)
        let allFinished = lanes.allSatisfy(\.finished)
        for lane in lanes where !lane.finished {
            // A lane that trails too far is mixed as silence where it has nothing.
            guard let has = lane.end else {
                if let maximumLag, furthest - start >= maximumLag { continue }
                return nil
            }
            if has >= end { continue }
            if let maximumLag, furthest - has >= maximumLag { continue }
            return nil
        }
        if allFinished {
            guard furthest > start else { return nil }
            end = min(end, furthest)
        }
        let length = Int(end - start)
        var mixed = Array(repeating: [Float](repeating: 0, count: length), count: blockChannels)
        for index in lanes.indices {
            guard let laneStart = lanes[index].start else { continue }
            let available = lanes[index].samples[0].count
            let offset = Int(laneStart - start)
            let gain = lanes[index].gain
            let firstChannel = stacks ? index * channels : 0
            // The lane's samples inside this block (none when it starts after the block or has nothing).
            let first = max(0, offset), last = min(length, offset + available)
            for channel in 0..<channels where first < last {
                lanes[index].samples[channel].withUnsafeBufferPointer { source in
                    for sample in first..<last {
                        mixed[firstChannel + channel][sample] += gain * source[sample - offset]
                    }
                }
            }
            // Consumed up to `end`.
            let used = max(0, min(available, Int(end - laneStart)))
            if used > 0 {
                for channel in 0..<channels { lanes[index].samples[channel].removeFirst(used) }
                lanes[index].start = laneStart + Int64(used)
            }
            if lanes[index].start! < end { lanes[index].start = end; lanes[index].samples = lanes[index].samples.map { _ in [] } }
        }
        position = end
        return (start, mixed)
    }
}
