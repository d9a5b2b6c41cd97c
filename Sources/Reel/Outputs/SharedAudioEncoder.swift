import FFmpegCore
import SystemSupport

/// The AAC encoder of the session's own movies whose sound runs alike, shared: tiers of one preset (the same
/// size, colour, codec settings, frame rate, limits and segments) that start with the session. Their pictures
/// come from the one SharedVideoEncoder of their preset, as every movie's on the session's timeline do; their
/// sound is placed the same way from the same items, cut at the same keyframes and paused at the same ones
/// (one PauseRequests for the group, whose pauses fall at one keyframe for all their subscriptions), so the
/// first of them (the owner) encodes it and publishes each file's part of its AAC packets as they come
/// (references to the same payloads, not copies); the others (followers) write those to their own files
/// instead of encoding. A second movie of one preset costs muxing only, as with ffmpeg's `-f tee` or
/// GStreamer's tee after the encoder. (A MovieOutput, which may be added, paused or stopped on its own,
/// encodes its own sound.)
///
/// The owner never waits for a follower of a live capture: one that falls `maximumLag` packets behind (its
/// disk stalls) is let go, and its movie ends there; of unpaced inputs (files), where nothing is lost by
/// waiting, the owner waits for it instead.
final class SharedAudioEncoder: Sendable {
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

        /// Lets go of the packets no follower still here can be using any more, each to `done` (for reuse).
        mutating func prune(active: [Bool], _ done: (Packet) -> Void) {
            var lowest: Int? = nil
            for index in inUse.indices where active[index] { lowest = min(lowest ?? inUse[index], inUse[index]) }
            let end = lowest ?? (base + packets.count)
            guard end > base else { return }
            for packet in packets[..<(end - base)] { done(packet) }
            packets.removeFirst(end - base)
            base = end
        }

        /// Follower `follower`'s packets not handed to it yet, appended to `taken`; those it was handed before
        /// are then free for it (it calls again only once done writing them).
        mutating func hand(to follower: Int, into taken: inout [Packet]) -> Int {
            let from = self.taken[follower] - base
            taken.append(contentsOf: packets[from...])
            inUse[follower] = self.taken[follower]
            self.taken[follower] = base + packets.count
            return packets.count - from
        }
    }

    /// Published packets no follower uses any more, unreferenced, for the owner to reuse (at most this many).
    private static let sparePackets = 64

    /// AAC packets a follower may be behind the owner (about 20 s at 48 kHz, a few hundred KB) before it is
    /// let go: the owner never waits for a live capture's follower, and memory must not grow with a stalled disk.
    static let maximumLag = 1000

    private struct State {
        /// Packets published so far (all segments), and how many each follower took.
        var published = 0
        var taken: [Int]
        var ownerEnded = false
        /// Why the owner's movie ended (a limit of its own file ends its followers' the same way).
        var ownerReason: StopReason?
        /// Unreferenced packets for the owner's next references (no allocation per packet once warm).
        var spare: [Packet] = []
        /// Followers that have not left (a follower whose movie finished takes nothing more).
        var active: [Bool]
        /// Followers let go for falling `maximumLag` packets behind: their next take ends their movie.
        var fellBehind: [Bool]
        var audio: [Int: SegmentAudio] = [:]

        func segmentAudio(_ index: Int) -> SegmentAudio {
            audio[index] ?? SegmentAudio(taken: Array(repeating: 0, count: active.count),
                                         inUse: Array(repeating: 0, count: active.count), finished: active.map { !$0 })
        }

        /// Follower `follower` takes nothing more: nothing is kept for it.
        mutating func drop(_ follower: Int) {
            active[follower] = false
            for index in Array(audio.keys) {
                audio[index]!.finished[follower] = true
                prune(index)
            }
        }

        /// Lets go of segment `index`'s packets no follower can be using (kept for the owner's reuse, up to
        /// `sparePackets`), and of the segment once every follower took all of it.
        mutating func prune(_ index: Int) {
            var kept = spare
            spare = []
            audio[index]!.prune(active: active) { packet in
                guard kept.count < SharedAudioEncoder.sparePackets else { return }
                packet.unref()
                kept.append(packet)
            }
            spare = kept
            // A finished segment's last packets may still be in use: they go with the entry, not to reuse.
            if audio[index]!.finished.allSatisfy({ $0 }) { audio[index] = nil }
        }
    }

    private let state: Locked<State>
    let followers: Int
    /// The inputs are unpaced: the owner waits for a follower `maximumLag` behind rather than let it go.
    let ownerWaits: Bool
    /// The group's subscriptions to their video encoder, as their movies are made: a pause or a resume falls
    /// at one keyframe for all of them (`pauses` asks them together).
    private let subscriptions = Locked<[EncoderSubscription]>([])

    /// The pauses every movie of the group shares: one stretch of the session's clock (or of items, for a
    /// file's timeline), so they all leave out the same items and resume on the same frame.
    let pauses: PauseRequests

    /// `sessionStart`: the session clock's zero (nil: a file's timeline, paused at items).
    init(followers: Int, sessionStart: Int64?, ownerWaits: Bool = false) {
        self.followers = followers
        self.ownerWaits = ownerWaits
        let subscriptions = self.subscriptions
        pauses = PauseRequests(sessionStart: sessionStart) { pausing, time in
            EncoderSubscription.together(subscriptions.withLock { $0 }, pausing: pausing, atMicroseconds: time)
        }
        state = Locked(State(taken: Array(repeating: 0, count: followers), active: Array(repeating: true, count: followers),
                             fellBehind: Array(repeating: false, count: followers)))
    }

    /// A movie of the group subscribed to its video encoder (before the session starts).
    func register(_ subscription: EncoderSubscription) { subscriptions.withLock { $0.append(subscription) } }

    private static let ownerEndedFirst = ReelError.runtime("the movie whose sound this movie shares ended before it")
    private static let fellBehind = ReelError.runtime(
        "this movie's file fell \(maximumLag) sound packets behind the movie whose sound it shares (a slow or stalled disk): it ends here")

    /// The owner's movie ended at a limit of its own file (the free-space floor, a full disk) before the
    /// follower's sound did: the follower's file, on the same disk, ends there the same way.
    struct OwnerStopped: Error {
        let reason: StopReason
    }

    // MARK: the owner

    /// The owner opened segment `index`'s AAC encoder.
    func openedAudio(segment index: Int, encoder: Encoder) {
        state.withLockNotifying { state in
            guard state.active.contains(true) else { return }
            var entry = state.segmentAudio(index)
            entry.encoder = encoder
            state.audio[index] = entry
        }
    }

    /// The next AAC packet of segment `index`, a new reference for the followers; returns a packet the
    /// followers are done with, unreferenced, for the owner's next reference (no allocation per packet once warm).
    func publishAudio(segment index: Int, _ packet: Packet) -> Packet? {
        if ownerWaits {
            state.wait { state in
                state.active.indices.allSatisfy { !state.active[$0] || state.published - state.taken[$0] < SharedAudioEncoder.maximumLag } ? () : nil
            }
        }
        return state.withLockNotifying { state in
            guard state.active.contains(true) else {
                packet.unref()  // no follower left: the owner has it back at once
                return packet
            }
            if state.audio[index] == nil { state.audio[index] = state.segmentAudio(index) }
            state.audio[index]!.packets.append(packet)  // in place: no copy of the segment's list
            state.published += 1
            for follower in state.active.indices where state.active[follower] && state.published - state.taken[follower] > SharedAudioEncoder.maximumLag {
                state.fellBehind[follower] = true
                state.drop(follower)
            }
            return state.spare.popLast()
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

    /// The owner's movie ended: a follower still waiting gets what was published and no more.
    func ownerFinished(reason: StopReason?) {
        state.withLockNotifying { state in
            state.ownerEnded = true
            state.ownerReason = reason
        }
    }

    // MARK: the followers

    /// Waits for the owner's AAC encoder of segment `index` (for its stream's description).
    func waitForAudioEncoder(segment index: Int) throws -> Encoder {
        try state.wait { state -> Result<Encoder, ReelError>? in
            if let encoder = state.audio[index]?.encoder { return .success(encoder) }
            return state.ownerEnded ? .failure(SharedAudioEncoder.ownerEndedFirst) : nil
        }.get()
    }

    /// Packets kept for followers that have not taken them yet, for the tests.
    var heldPackets: Int { state.withLock { $0.audio.values.reduce(0) { $0 + $1.packets.count } } }

    /// Follower `follower`'s movie finished: it takes nothing more, and nothing is kept for it (a follower
    /// whose own file failed must not make the owner's packets pile up for the rest of the recording).
    func leave(follower: Int) {
        state.withLockNotifying { $0.drop(follower) }
    }

    /// Appends to `packets` the segment's AAC packets follower `follower` has not taken yet (what is there
    /// now, or with `waitForEnd` all of them once the owner ended the segment's audio); returns whether they are
    /// its last (the owner ended the segment's audio). The packets handed before are free again: the follower
    /// calls once done writing them (into the same reused list: no allocation per call once warm). Throws when
    /// the owner ended first (OwnerStopped when at a limit of its disk).
    func takeAudio(segment index: Int, follower: Int, waitForEnd: Bool, into packets: inout [Packet]) throws -> Bool {
        do {
            // An owner that waits for its followers is woken once this one has taken.
            defer { if ownerWaits { state.withLockNotifying { _ in } } }
            return try state.wait { state -> Result<Bool, ReelError>? in
                if state.fellBehind[follower] { return .failure(SharedAudioEncoder.fellBehind) }
                let ended = state.audio[index]?.ended ?? false
                if waitForEnd && !ended {
                    return state.ownerEnded ? .failure(SharedAudioEncoder.ownerEndedFirst) : nil
                }
                if state.audio[index] == nil { state.audio[index] = state.segmentAudio(index) }
                state.taken[follower] += state.audio[index]!.hand(to: follower, into: &packets)
                if ended { state.audio[index]!.finished[follower] = true }
                state.prune(index)
                return .success(ended)
            }.get()
        } catch {
            if let reason = state.withLock({ $0.ownerReason }), [.maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(reason) {
                throw OwnerStopped(reason: reason)
            }
            throw error
        }
    }
}

extension SharedAudioEncoder {
    /// A movie's part in a shared AAC encoder.
    enum Role: Sendable {
        case owner(SharedAudioEncoder)
        /// `index`: the follower's number among the encoder's followers (0, 1 ...).
        case follower(SharedAudioEncoder, index: Int)

        var group: SharedAudioEncoder {
            switch self {
            case .owner(let shared), .follower(let shared, _): shared
            }
        }
    }

    /// What must be equal for movies to share their sound: the pictures and codec settings (SharedVideoEncoder's
    /// key: the preset, its name aside, sound included), and everything that places keyframes and ends the
    /// tracks the same way (limits, segments, the timeline's origin).
    struct Key: Equatable {
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
    /// roles: each group of equal keys shares the first one's AAC encoder and pauses. Only movies that take
    /// their pictures from a shared video encoder (SharedVideoEncoders.subscribes: not cut by size) and record
    /// one sound track (the handout is one AAC stream per file) group.
    static func assignRoles(_ setups: inout [MovieRecorder.Setup], count: Int) {
        var groups: [(key: Key, members: [Int])] = []
        for index in 0..<min(count, setups.count)
        where SharedVideoEncoders.subscribes(setups[index]) && setups[index].audioTrackCount == 1 {
            let key = Key(setups[index])
            if let group = groups.firstIndex(where: { $0.key == key }) { groups[group].members.append(index) }
            else { groups.append((key, [index])) }
        }
        for group in groups where group.members.count > 1 {
            let first = setups[group.members[0]]
            let shared = SharedAudioEncoder(followers: group.members.count - 1,
                                            sessionStart: first.timelineFromInputStart ? nil : first.sessionStart,
                                            ownerWaits: first.timelineFromInputStart)
            setups[group.members[0]].sharedAudio = .owner(shared)
            for (number, member) in group.members.dropFirst().enumerated() {
                setups[member].sharedAudio = .follower(shared, index: number)
            }
        }
    }
}
