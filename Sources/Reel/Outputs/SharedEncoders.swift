import FFmpegCore
import SystemSupport

/// The encoders of movies that record the same pictures and sound the same way, shared: tiers of one
/// preset (the same size, colour, codec settings, frame rate, limits and segments) that start with the
/// session. The first of them owns the encoders: it encodes and publishes, for each video frame it sends,
/// the packets the encoder gave back after it, and each segment's part of its AAC packets as they come
/// (references to the same payloads, not copies). The others make the same decisions from the same items — the slots
/// (VideoTrack), keyframes, segment boundaries and audio frames are functions of the items' times, so they
/// agree — and write those packets to their own files instead of encoding. A second movie of one preset
/// costs muxing only, as with ffmpeg's `-f tee` or GStreamer's tee after the encoder. (Movies that may be
/// added, paused or stopped on their own, MovieOutputs, take their pictures from a SharedVideoEncoder instead.)
///
/// The owner never waits for a follower; a follower waits for the owner's next video batch, or the end of a
/// segment's audio, which the owner's thread makes as it goes. What is kept for a follower is bounded: of a
/// live capture, one that falls `maximumLag` video sends behind (its disk stalls) is let go, and its movie
/// ends there; of unpaced inputs (files), where nothing is lost by waiting, the owner waits for it instead.
final class SharedEncoders: Sendable {
    /// One segment's AAC: the owner's encoder (for the stream's description), its packets in order (from
    /// `base` on: those every follower took are let go) and whether the owner ended the segment's audio.
    private struct SegmentAudio {
        var encoder: Encoder?
        var packets: [Packet] = []
        var base = 0
        /// Per follower: the end of what it was handed, and the start of its last handout (packets it may
        /// still be writing on its thread until its next call).
        var taken: [Int]
        var inUse: [Int]
        var ended = false
        /// Followers that took the whole segment (or left): once all have, it is let go with its encoder.
        var finished: [Bool]

        /// The packets no follower still here can be using any more (they may be reused).
        mutating func prune(active: [Bool]) -> ArraySlice<Packet> {
            let lowest = SharedEncoders.lowest(inUse, active: active) ?? (base + packets.count)
            guard lowest > base else { return [] }
            let done = packets[..<(lowest - base)]
            packets.removeFirst(lowest - base)
            base = lowest
            return done
        }
    }

    /// The smallest of `values` over the followers still here; nil when none is (no allocation: it runs per frame).
    fileprivate static func lowest(_ values: [Int], active: [Bool]) -> Int? {
        var lowest: Int? = nil
        for index in values.indices where active[index] { lowest = min(lowest ?? values[index], values[index]) }
        return lowest
    }

    /// Published packets no follower uses any more, unreferenced, for the owner to reuse (at most this many).
    private static let sparePackets = 64

    /// Video sends a follower may be behind the owner (10 s at 30 fps; a 720p movie's packets there are a few
    /// MB) before it is let go: the owner never waits, and memory must not grow with a stalled disk.
    static let maximumLag = 300

    private struct State {
        var encoder: Encoder?
        var openFailure: String?
        /// Published video batches by sequence number (the owner's sends, in order); `flushIndex` is the
        /// batch of the encoder's drain at the end.
        var batches: [Int: [Packet]] = [:]
        var published = 0
        var flushIndex: Int?
        var ownerEnded = false
        /// Why the owner's movie ended (a limit of its own file ends its followers' the same way).
        var ownerReason: StopReason?
        /// Each follower's next batch, and the first batch of its last handout (which it may still be
        /// writing); batches below every follower's last handout are let go.
        var cursors: [Int]
        var inUse: [Int]
        /// Batches below this are let go.
        var releasedBelow = 0
        /// Unreferenced packets for the owner's next references (no allocation per packet once warm).
        var spare: [Packet] = []
        /// Followers that have not left (a follower whose movie finished takes nothing more).
        var active: [Bool]
        /// Followers let go for falling `maximumLag` sends behind: their next take ends their movie.
        var fellBehind: [Bool]
        var audio: [Int: SegmentAudio] = [:]

        func segmentAudio(_ index: Int) -> SegmentAudio {
            audio[index] ?? SegmentAudio(taken: Array(repeating: 0, count: cursors.count),
                                         inUse: Array(repeating: 0, count: cursors.count), finished: active.map { !$0 })
        }

        mutating func take(_ follower: Int, upTo end: Int) {
            inUse[follower] = cursors[follower]
            cursors[follower] = end
            pruneBatches()
        }

        /// Lets go of the video batches no follower still here can be using.
        mutating func pruneBatches() {
            let lowest = min(SharedEncoders.lowest(inUse, active: active) ?? published, published)
            while releasedBelow < lowest {
                if let batch = batches.removeValue(forKey: releasedBelow) { recycle(batch[...]) }
                releasedBelow += 1
            }
        }

        /// Follower `follower` takes nothing more: nothing is kept for it.
        mutating func drop(_ follower: Int) {
            active[follower] = false
            letGoOfTheEncoderWhenUnused()
            pruneBatches()
            for (index, var entry) in audio {
                entry.finished[follower] = true
                recycle(entry.prune(active: active))
                audio[index] = entry.finished.allSatisfy { $0 } ? nil : entry
            }
        }

        /// Once the owner ended and every follower left, no movie needs the encoder to describe its stream.
        mutating func letGoOfTheEncoderWhenUnused() {
            if ownerEnded && !active.contains(true) { encoder = nil }
        }

        mutating func recycle(_ packets: ArraySlice<Packet>) {
            for packet in packets where spare.count < SharedEncoders.sparePackets {
                packet.unref()
                spare.append(packet)
            }
        }

        /// Up to `count` spare packets for the owner.
        mutating func spares(_ count: Int) -> [Packet] {
            let handed = Array(spare.suffix(count))
            spare.removeLast(handed.count)
            return handed
        }
    }

    private let state: Locked<State>
    let followers: Int
    /// The inputs are unpaced: the owner waits for a follower `maximumLag` behind rather than let it go.
    let ownerWaits: Bool

    init(followers: Int, pauses: PauseRequests, ownerWaits: Bool = false) {
        self.followers = followers
        self.pauses = pauses
        self.ownerWaits = ownerWaits
        state = Locked(State(cursors: Array(repeating: 0, count: followers), inUse: Array(repeating: 0, count: followers),
                             active: Array(repeating: true, count: followers), fellBehind: Array(repeating: false, count: followers)))
    }

    private static let ownerEndedFirst = ReelError.runtime("the movie whose encoders this movie shares ended before it")
    private static let fellBehind = ReelError.runtime(
        "this movie's file fell \(maximumLag) pictures behind the movie whose encoders it shares (a slow or stalled disk): it ends here")

    /// The owner's movie ended at a limit of its own file (its size, the free-space floor) before the
    /// follower's next frame: the follower's file, which holds the same packets, ends there the same way.
    struct OwnerStopped: Error {
        let reason: StopReason
    }

    /// The pauses every movie of the group shares: one stretch of the session's clock (or of items, for a
    /// file's timeline), so they all leave out the same items and resume on the same frame.
    let pauses: PauseRequests

    // MARK: the owner

    /// The encoder is open (or could not be opened: its followers fail with the same message).
    func opened(_ encoder: Encoder) { state.withLockNotifying { $0.encoder = encoder } }
    func failedToOpen(_ message: String) { state.withLockNotifying { $0.openFailure = message } }

    /// The packets the encoder gave back after one video send (`isFlush`: the drain at the end), each a new
    /// reference to the payload the owner writes. Returns packets the followers are done with, unreferenced,
    /// for the owner's next references (as many as it gave, when there are).
    func publish(_ packets: [Packet], isFlush: Bool) -> [Packet] {
        if ownerWaits {
            state.wait { state in
                state.active.indices.allSatisfy { !state.active[$0] || state.published - state.cursors[$0] < SharedEncoders.maximumLag } ? () : nil
            }
        }
        return state.withLockNotifying { state in
            if state.active.contains(true) { state.batches[state.published] = packets }
            if isFlush { state.flushIndex = state.published }
            state.published += 1
            for follower in state.active.indices where state.active[follower] && state.published - state.cursors[follower] > SharedEncoders.maximumLag {
                state.fellBehind[follower] = true
                state.drop(follower)
            }
            return state.spares(packets.count)
        }
    }

    /// The owner's movie ended: a follower still waiting gets what was published and no more.
    func ownerFinished(reason: StopReason?) {
        state.withLockNotifying { state in
            state.ownerEnded = true
            state.ownerReason = reason
            state.letGoOfTheEncoderWhenUnused()
        }
    }

    /// The owner opened segment `index`'s AAC encoder.
    func openedAudio(segment index: Int, encoder: Encoder) {
        state.withLockNotifying { state in
            guard state.active.contains(true) else { return }
            var entry = state.segmentAudio(index)
            entry.encoder = encoder
            state.audio[index] = entry
        }
    }

    /// AAC packets of segment `index`, in order, each a new reference for the followers; returns spare
    /// packets as `publish` does.
    func publishAudio(segment index: Int, _ packets: [Packet]) -> [Packet] {
        guard !packets.isEmpty else { return [] }
        return state.withLockNotifying { state in
            guard state.active.contains(true) else { return [] }
            var entry = state.segmentAudio(index)
            entry.packets += packets
            state.audio[index] = entry
            return state.spares(packets.count)
        }
    }

    /// The owner drained segment `index`'s AAC encoder: every packet of it is published.
    func endedAudio(segment index: Int) {
        state.withLockNotifying { state in
            guard state.active.contains(true) else { return }
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
        do {
            // An owner that waits for its followers is woken once this one has taken.
            defer { if ownerWaits { state.withLockNotifying { _ in } } }
            return try state.wait { state -> Result<[Packet], ReelError>? in
                if state.fellBehind[follower] { return .failure(SharedEncoders.fellBehind) }
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
        } catch {
            if let reason = state.withLock({ $0.ownerReason }), [.maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(reason) {
                throw OwnerStopped(reason: reason)
            }
            throw error
        }
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
        state.withLockNotifying { $0.drop(follower) }
    }

    /// The segment's AAC packets follower `follower` has not taken yet, and whether they are its last (the
    /// owner ended the segment's audio): what is there now, or with `waitForEnd` all of them once the owner
    /// ended the segment's audio. Throws when the owner ended first.
    func takeAudio(segment index: Int, follower: Int, waitForEnd: Bool) throws -> (packets: [Packet], ended: Bool) {
        try state.wait { state -> Result<([Packet], Bool), ReelError>? in
            if state.fellBehind[follower] { return .failure(SharedEncoders.fellBehind) }
            let ended = state.audio[index]?.ended ?? false
            if waitForEnd && !ended {
                return state.ownerEnded ? .failure(SharedEncoders.ownerEndedFirst) : nil
            }
            var entry = state.segmentAudio(index)
            let packets = Array(entry.packets[(entry.taken[follower] - entry.base)...])
            entry.inUse[follower] = entry.taken[follower]
            entry.taken[follower] = entry.base + entry.packets.count
            state.recycle(entry.prune(active: state.active))
            if ended { entry.finished[follower] = true }
            // A finished segment's last packets may still be in use: they go with the entry, not to reuse.
            state.audio[index] = entry.finished.allSatisfy { $0 } ? nil : entry
            return .success((packets, ended))
        }.get()
    }
}

extension SharedEncoders {
    /// A movie's part in a shared encoder.
    enum Role: Sendable {
        case owner(SharedEncoders)
        /// `index`: the follower's number among the encoder's followers (0, 1 ...).
        case follower(SharedEncoders, index: Int)
        /// Subscriber `id` of an encoder of its own (SharedVideoEncoder): a movie on the session's timeline
        /// (a MovieOutput, which may join, pause and stop on its own; the session's own movie).
        case subscriber(SharedVideoEncoder, id: Int)

        /// The owner's and followers' group (they share their pauses).
        var group: SharedEncoders? {
            switch self {
            case .owner(let shared), .follower(let shared, _): shared
            case .subscriber: nil
            }
        }
    }

    /// What must be equal for movies to share an encoder: the pictures (rendition, colour), the codec
    /// settings and rate (the preset, its name aside), and everything that places keyframes and ends the
    /// track the same way (limits, segments, fragments, the timeline's origin).
    struct Key: Equatable {
        /// The pictures and codec settings (SharedVideoEncoder's key).
        var encoding: SharedVideoEncoder.Key
        var limits: RecordingLimits
        var segmentation: Segmentation?
        var timelineFromInputStart: Bool

        init(_ setup: MovieRecorder.Setup) {
            encoding = SharedVideoEncoder.Key(setup)
            limits = setup.limits
            segmentation = setup.segmentation
            timelineFromInputStart = setup.timelineFromInputStart
        }
    }

    /// Gives the movies that start with the session (the first `count`: the main movie and its tiers) their
    /// roles: each group of equal keys shares the first one's encoder. Movies without video share nothing.
    static func assignRoles(_ setups: inout [MovieRecorder.Setup], count: Int) {
        var groups: [(key: Key, members: [Int])] = []
        // Cuts by size (segment sizes, the total size's end) are decided from each file's own bytes, which
        // the interleaving of audio can make differ by a few: such movies keep encoders of their own. So do
        // movies of several sound tracks (the followers' handout is one AAC stream per segment).
        for index in 0..<min(count, setups.count) where setups[index].hasVideo && setups[index].segmentation?.size == nil
            && setups[index].limits.maxFileSize == nil && setups[index].audioTrackCount == 1 {
            let key = Key(setups[index])
            if let group = groups.firstIndex(where: { $0.key == key }) { groups[group].members.append(index) }
            else { groups.append((key, [index])) }
        }
        for group in groups where group.members.count > 1 {
            let first = setups[group.members[0]]
            let pauses = PauseRequests(sessionStart: first.timelineFromInputStart ? nil : first.sessionStart)
            let shared = SharedEncoders(followers: group.members.count - 1, pauses: pauses, ownerWaits: first.timelineFromInputStart)
            setups[group.members[0]].sharedVideo = .owner(shared)
            for (number, member) in group.members.dropFirst().enumerated() {
                setups[member].sharedVideo = .follower(shared, index: number)
            }
        }
    }
}
