import FFmpegCore
import SystemSupport

/// The encoders of movies that record the same pictures and sound the same way, shared: tiers of one
/// preset (the same size, colour, codec settings, frame rate, limits and segments) that start with the
/// session. The first of them owns the encoders: it encodes and publishes, for each video frame it sends,
/// the packets the encoder gave back after it, and each segment's AAC packets as they come (references to
/// the same payloads, not copies). The others make the same decisions from the same items — the slots
/// (VideoTrack), keyframes, segment boundaries and audio frames are functions of the items' times, so they
/// agree — and write those packets to their own files instead of encoding. A second movie of one preset
/// costs muxing only, as with ffmpeg's `-f tee` or GStreamer's tee after the encoder. (Movies that may be
/// paused or stopped on their own, MovieOutputs, keep encoders of their own.)
///
/// The owner never waits for a follower; a follower waits for the owner's next video batch, or the end of a
/// segment's audio, which the owner's thread makes as it goes.
final class SharedEncoders: Sendable {
    /// One segment's AAC: the owner's encoder (for the stream's description), its packets in order (from
    /// `base` on: those every follower took are let go) and whether the owner ended the segment's audio.
    private struct SegmentAudio {
        var encoder: Encoder?
        var packets: [Packet] = []
        var base = 0
        var taken: [Int]
        var ended = false
        /// Followers that took the whole segment (or left): once all have, it is let go with its encoder.
        var finished: [Bool]

        /// Lets go of what every follower still here has taken.
        mutating func prune(active: [Bool]) {
            let lowest = zip(taken, active).filter(\.1).map(\.0).min() ?? (base + packets.count)
            if lowest > base {
                packets.removeFirst(lowest - base)
                base = lowest
            }
        }
    }

    private struct State {
        var encoder: Encoder?
        var openFailure: String?
        /// Published video batches by sequence number (the owner's sends, in order); `flushIndex` is the
        /// batch of the encoder's drain at the end.
        var batches: [Int: [Packet]] = [:]
        var published = 0
        var flushIndex: Int?
        var ownerEnded = false
        /// Each follower's next batch: batches every follower still here has taken are let go.
        var cursors: [Int]
        /// Followers that have not left (a follower whose movie finished takes nothing more).
        var active: [Bool]
        var audio: [Int: SegmentAudio] = [:]

        func segmentAudio(_ index: Int) -> SegmentAudio {
            audio[index] ?? SegmentAudio(taken: Array(repeating: 0, count: cursors.count),
                                         finished: active.map { !$0 })
        }

        mutating func take(_ follower: Int, upTo end: Int) {
            cursors[follower] = end
            pruneBatches()
        }

        /// Lets go of the video batches every follower still here has taken.
        mutating func pruneBatches() {
            let lowest = zip(cursors, active).filter(\.1).map(\.0).min() ?? published
            batches = batches.filter { $0.key >= lowest }
        }
    }

    private let state: Locked<State>
    let followers: Int

    init(followers: Int) {
        self.followers = followers
        state = Locked(State(cursors: Array(repeating: 0, count: followers), active: Array(repeating: true, count: followers)))
    }

    private static let ownerEndedFirst = ReelError.runtime("the movie whose encoders this movie shares ended before it")

    // MARK: the owner

    /// The encoder is open (or could not be opened: its followers fail with the same message).
    func opened(_ encoder: Encoder) { state.withLockNotifying { $0.encoder = encoder } }
    func failedToOpen(_ message: String) { state.withLockNotifying { $0.openFailure = message } }

    /// The packets the encoder gave back after one video send (`isFlush`: the drain at the end), each a new
    /// reference to the payload the owner writes.
    func publish(_ packets: [Packet], isFlush: Bool) {
        state.withLockNotifying { state in
            if state.active.contains(true) { state.batches[state.published] = packets }
            if isFlush { state.flushIndex = state.published }
            state.published += 1
        }
    }

    /// The owner's movie ended: a follower still waiting gets what was published and no more.
    func ownerFinished() { state.withLockNotifying { $0.ownerEnded = true } }

    /// The owner opened segment `index`'s AAC encoder.
    func openedAudio(segment index: Int, encoder: Encoder) {
        state.withLockNotifying { state in
            var entry = state.segmentAudio(index)
            entry.encoder = encoder
            state.audio[index] = entry
        }
    }

    /// AAC packets of segment `index`, in order, each a new reference for the followers.
    func publishAudio(segment index: Int, _ packets: [Packet]) {
        guard !packets.isEmpty else { return }
        state.withLockNotifying { state in
            guard state.active.contains(true) else { return }
            var entry = state.segmentAudio(index)
            entry.packets += packets
            state.audio[index] = entry
        }
    }

    /// The owner drained segment `index`'s AAC encoder: every packet of it is published.
    func endedAudio(segment index: Int) {
        state.withLockNotifying { state in
            var entry = state.segmentAudio(index)
            entry.ended = true
            state.audio[index] = entry
        }
    }

    // MARK: the followers

    /// Waits for the owner's video encoder (for its stream's description: the follower never calls it).
    func waitForEncoder() throws -> Encoder {
        try state.wait { state -> Result<Encoder, ReelError>? in
            if let encoder = state.encoder { return .success(encoder) }
            if let failure = state.openFailure { return .failure(.runtime(failure)) }
            return state.ownerEnded ? .failure(SharedEncoders.ownerEndedFirst) : nil
        }.get()
    }

    /// Waits for the owner's AAC encoder of segment `index` (for its stream's description).
    func waitForAudioEncoder(segment index: Int) throws -> Encoder {
        try state.wait { state -> Result<Encoder, ReelError>? in
            if let encoder = state.audio[index]?.encoder { return .success(encoder) }
            return state.ownerEnded ? .failure(SharedEncoders.ownerEndedFirst) : nil
        }.get()
    }

    /// Follower `follower`'s next video batch, for its next send (`isFlush`: its drain at the end, which
    /// takes every batch left, up to the owner's drain). Throws when the owner ended without it.
    func nextBatch(follower: Int, isFlush: Bool) throws -> [Packet] {
        try state.wait { state -> Result<[Packet], ReelError>? in
            let next = state.cursors[follower]
            if isFlush {
                guard state.flushIndex != nil || state.ownerEnded else { return nil }
                let end = state.flushIndex.map { $0 + 1 } ?? state.published
                if state.flushIndex == nil && next >= end { return .failure(SharedEncoders.ownerEndedFirst) }
                let packets = (next..<max(next, end)).flatMap { state.batches[$0] ?? [] }
                state.take(follower, upTo: max(next, end))
                return .success(packets)
            }
            if next == state.flushIndex {
                // The owner drained its encoder already (its last picture came a frame sooner): this frame's
                // packets came with that drain, which the follower takes at its own.
                return .success([])
            }
            if next < state.published {
                let packets = state.batches[next] ?? []
                state.take(follower, upTo: next + 1)
                return .success(packets)
            }
            return state.ownerEnded ? .failure(SharedEncoders.ownerEndedFirst) : nil
        }.get()
    }

    /// Packets kept for followers that have not taken them yet (video batches and AAC), for the tests.
    var heldPackets: Int {
        state.withLock { state in
            state.batches.values.reduce(0) { $0 + $1.count } + state.audio.values.reduce(0) { $0 + $1.packets.count }
        }
    }

    /// Follower `follower`'s movie finished: it takes nothing more, and nothing is kept for it (a follower
    /// whose own file failed must not make the owner's packets pile up for the rest of the recording).
    func leave(follower: Int) {
        state.withLockNotifying { state in
            state.active[follower] = false
            state.pruneBatches()
            for (index, var entry) in state.audio {
                entry.finished[follower] = true
                entry.prune(active: state.active)
                state.audio[index] = entry.finished.allSatisfy { $0 } ? nil : entry
            }
        }
    }

    /// The segment's AAC packets follower `follower` has not taken yet: what is there now, or with
    /// `waitForEnd` all of them once the owner ended the segment's audio. Throws when the owner ended first.
    func takeAudio(segment index: Int, follower: Int, waitForEnd: Bool) throws -> [Packet] {
        try state.wait { state -> Result<[Packet], ReelError>? in
            if waitForEnd && !(state.audio[index]?.ended ?? false) {
                return state.ownerEnded ? .failure(SharedEncoders.ownerEndedFirst) : nil
            }
            var entry = state.segmentAudio(index)
            let packets = Array(entry.packets[(entry.taken[follower] - entry.base)...])
            entry.taken[follower] = entry.base + entry.packets.count
            entry.prune(active: state.active)
            if waitForEnd { entry.finished[follower] = true }
            state.audio[index] = entry.finished.allSatisfy { $0 } ? nil : entry
            return .success(packets)
        }.get()
    }
}

extension SharedEncoders {
    /// A movie's part in a shared encoder.
    enum Role: Sendable {
        case owner(SharedEncoders)
        /// `index`: the follower's number among the encoder's followers (0, 1 ...).
        case follower(SharedEncoders, index: Int)
    }

    /// What must be equal for movies to share an encoder: the pictures (rendition, colour), the codec
    /// settings and rate (the preset, its name aside), and everything that places keyframes and ends the
    /// track the same way (limits, segments, fragments, the timeline's origin).
    struct Key: Equatable {
        var preset: Preset
        var limits: RecordingLimits
        var segmentation: Segmentation?
        var rendition: Int
        var colour: ColourDescription
        var fragmentInterval: Double
        var timelineFromInputStart: Bool

        init(_ setup: MovieRecorder.Setup) {
            preset = setup.preset
            preset.name = ""
            limits = setup.limits
            segmentation = setup.segmentation
            rendition = setup.rendition
            colour = setup.videoColour
            fragmentInterval = setup.fragmentInterval
            timelineFromInputStart = setup.timelineFromInputStart
        }
    }

    /// Gives the movies that start with the session (the first `count`: the main movie and its tiers) their
    /// roles: each group of equal keys shares the first one's encoder. Movies without video share nothing.
    static func assignRoles(_ setups: inout [MovieRecorder.Setup], count: Int) {
        var groups: [(key: Key, members: [Int])] = []
        for index in 0..<min(count, setups.count) where setups[index].hasVideo {
            let key = Key(setups[index])
            if let group = groups.firstIndex(where: { $0.key == key }) { groups[group].members.append(index) }
            else { groups.append((key, [index])) }
        }
        for group in groups where group.members.count > 1 {
            let shared = SharedEncoders(followers: group.members.count - 1)
            setups[group.members[0]].sharedVideo = .owner(shared)
            for (number, member) in group.members.dropFirst().enumerated() {
                setups[member].sharedVideo = .follower(shared, index: number)
            }
        }
    }
}
