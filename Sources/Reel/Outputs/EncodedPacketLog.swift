import FFmpegCore
import SystemSupport

/// A shared video encoder's packets as its subscribers take them (SharedVideoEncoder writes, the movies of
/// its preset read), and the keyframes they ask for. Each subscriber has a cursor; a packet every subscriber
/// has taken is let go (its reference comes back to the encoder for the next packet: no allocation per
/// packet once warm). The encoder never waits for a subscriber of a live capture: one that falls
/// `maximumLag` packets behind (its disk stalls) is let go, and its movie ends there; of unpaced inputs,
/// where nothing is lost by waiting, the encoder waits for it instead.
///
/// Keyframes are asked for at a slot or the first one after it that the encoder has not sent yet (a movie's
/// join, its pause and resume, its stop, its duration limit): the answer is the slot that will be one, so
/// the movie's edges are decided when they are asked, before any picture at them is encoded.
final class EncodedPacketLog: Sendable {
    /// Packets a subscriber may be behind (10 s of a 30 fps stream; a 720p stream's packets there are a few MB).
    static let maximumLag = 300
    /// Taken packets kept unreferenced for the encoder's next ones.
    private static let sparePackets = 64

    private struct Subscriber {
        var cursor: Int
        var wake: @Sendable () -> Void = {}
        /// Its last pause: the slot it began at, and once it resumed, the slot it resumed at.
        var pause: (from: Int64, until: Int64?)?
        /// The slot its pictures end before (its duration limit or its stop), once known.
        var end: Int64?

        /// Whether it wants no picture at `slot`: it has ended there (the drain gives it every picture before,
        /// and it counts them), or it is paused and has all from before its pause (its keyframe is out).
        func wantsNothing(at slot: Int64, highestPacket: Int64) -> Bool {
            if let end, slot >= end { return true }
            guard let pause, pause.from <= slot, pause.from <= highestPacket else { return false }
            return pause.until.map { slot < $0 } ?? true
        }
    }

    private struct State {
        var encoder: Encoder?
        var failure: String?
        /// The session time of the encoder's slot 0 (its first picture), once it came.
        var origin: Timestamp?
        var packets: [Packet] = []
        /// Beside each packet: whether it shows the same picture as the slot before (the source fell short).
        var repeated: [Bool] = []
        /// The log index of `packets[0]`.
        var base = 0
        /// The first slot not sent to the encoder yet: a keyframe asked for from here on is made where asked.
        var nextSlot: Int64 = 0
        var requests: [Int64] = []
        /// Resumes asked for whose movies are not all told yet (`reserveResume`): the encoder sends these slots
        /// even while every subscriber it knows of is paused (else an encoder of unpaced inputs, skipping fast,
        /// could pass a resume's slot before the movies resumed there).
        var pendingResumes: [Int64] = []
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// Subscribers let go for falling behind: their next take ends their movie.
        var fellBehind: Set<Int> = []
        /// Takes no subscriber any more (its last one left, or the encoder ends).
        var closed = false
        /// Every packet the encoder will make is in the log.
        var ended = false
        var spare: [Packet] = []
        /// Every subscriber's wake, kept as subscribers come and go (not made anew for each picture).
        var wakes: [@Sendable () -> Void] = []

        var end: Int { base + packets.count }

        mutating func keepWakes() { wakes = subscribers.values.map(\.wake) }

        /// Lets go of the packets every subscriber has taken.
        /// The encoder, handed out to be let go once it ended and every subscriber left (each had it for its
        /// stream's description): x264's threads and pictures must not outlive the movies, nor the process's
        /// last result (no subscriber joins a log that ended, so none will ask for it again).
        mutating func letGoOfEncoderIfDone() -> Encoder? {
            ended && subscribers.isEmpty ? encoder.take() : nil
        }

        mutating func prune() {
            let lowest = subscribers.values.map(\.cursor).min() ?? end
            guard lowest > base else { return }
            for packet in packets[..<(lowest - base)] where spare.count < EncodedPacketLog.sparePackets {
                packet.unref()
                spare.append(packet)
            }
            packets.removeFirst(lowest - base)
            repeated.removeFirst(lowest - base)
            base = lowest
        }
    }
    private let state = Locked(State())
    /// Unpaced inputs: the encoder waits for a subscriber `maximumLag` behind rather than let it go.
    let encoderWaits: Bool

    init(encoderWaits: Bool) { self.encoderWaits = encoderWaits }

    private static let fellBehind = ReelError.runtime(
        "this movie's file fell \(maximumLag) pictures behind the encoder it shares (a slow or stalled disk): it ends here")

    // MARK: the encoder

    func opened(_ encoder: Encoder) { state.withLockNotifying { $0.encoder = encoder } }

    /// The encoder could not be opened, or failed: every subscriber fails with `message`.
    func fail(_ message: String) {
        let wakes = state.withLockNotifying { state in
            state.failure = state.failure ?? message
            state.closed = true
            state.ended = true
            return state.wakes
        }
        for wake in wakes { wake() }
    }

    func setOrigin(_ origin: Timestamp) { state.withLockNotifying { $0.origin = origin } }

    /// What the encoder does with a slot.
    enum Send: Equatable {
        case send(forcingKeyframe: Bool)
        /// Every subscriber is paused there and has had its pictures from before its pause: nothing is encoded
        /// (SharedVideoEncoder drains its encoder, and a new one starts at the next slot sent, a keyframe).
        case skip
    }

    /// The encoder is about to send slot `slot`, having had packets up to slot `highestPacket`: whether a
    /// subscriber asked for a keyframe there, or whether none wants it.
    func beginSend(slot: Int64, highestPacket: Int64) -> Send {
        state.withLock { state in
            state.nextSlot = slot + 1
            // The first packet at or past a pause's slot is its keyframe: every picture before it is out.
            if !state.subscribers.isEmpty, !state.pendingResumes.contains(where: { $0 <= slot }),
               state.subscribers.values.allSatisfy({ $0.wantsNothing(at: slot, highestPacket: highestPacket) }) { return .skip }
            guard state.requests.contains(where: { $0 <= slot }) else { return .send(forcingKeyframe: false) }
            state.requests.removeAll { $0 <= slot }
            return .send(forcingKeyframe: true)
        }
    }

    /// Adds the packets the encoder gave back after a send (`repeated`: beside each, whether its picture
    /// repeats the slot before's), and wakes the subscribers; `spare` gets the packets every subscriber is
    /// done with, unreferenced, to receive the next ones into.
    func publish(_ packets: [Packet], repeated: [Bool], spare: inout [Packet]) {
        guard !packets.isEmpty else { return }
        if encoderWaits {
            state.wait { state in
                state.subscribers.values.allSatisfy { state.end - $0.cursor < EncodedPacketLog.maximumLag } ? () : nil
            }
        }
        let wakes = state.withLockNotifying { state -> [@Sendable () -> Void] in
            defer {
                spare.append(contentsOf: state.spare)
                state.spare.removeAll(keepingCapacity: true)
            }
            guard !state.subscribers.isEmpty else {
                for packet in packets { packet.unref() }
                state.spare += packets.prefix(max(0, EncodedPacketLog.sparePackets - state.spare.count))
                return []
            }
            state.packets += packets
            state.repeated += repeated
            // Woken all the same (the list kept, not made per picture): one let go learns it at its next take.
            let wakes = state.wakes
            for (id, subscriber) in state.subscribers where state.end - subscriber.cursor > EncodedPacketLog.maximumLag {
                state.fellBehind.insert(id)
                state.subscribers[id] = nil
                state.keepWakes()
            }
            state.prune()
            return wakes
        }
        for wake in wakes { wake() }
    }

    /// The encoder has given every packet: subscribers take what is left and end.
    func end() {
        let (wakes, done) = state.withLockNotifying { state in
            state.closed = true
            state.ended = true
            return (state.wakes, state.letGoOfEncoderIfDone())
        }
        for wake in wakes { wake() }
        withExtendedLifetime(done) {}  // closed here, outside the lock
    }

    /// Once its last subscriber left, the encoder ends: no subscriber joins any more (a movie added later gets
    /// an encoder of its own). True when it is closed so.
    func closeIfUnused() -> Bool {
        state.withLock { state in
            if state.subscribers.isEmpty && state.nextID > 0 {
                state.closed = true
                state.encoder = nil  // no movie is left to describe its stream with it
            }
            return state.closed
        }
    }

    // MARK: the subscribers

    /// A new subscriber, who takes the packets made from now on; nil once the encoder has closed.
    func subscribe() -> Int? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(cursor: state.end)
            state.keepWakes()
            return id
        }
    }

    /// What subscriber `id` is woken with (on the encoder's thread) when there are new packets or the encoder ended.
    func setWake(_ id: Int, _ wake: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.subscribers[id]?.wake = wake
            state.keepWakes()
        }
    }

    /// Asks for a keyframe at `slot`, or at the first slot after it the encoder has not sent yet: that slot,
    /// which will be one.
    func requestKeyframe(atOrAfter slot: Int64) -> Int64 {
        state.withLock { state in
            let made = max(slot, state.nextSlot)
            if made > 0 { state.requests.append(made) }
            return made
        }
    }

    /// A resume's keyframe (as `requestKeyframe`), which the encoder sends rather than skip until
    /// `resumeTold` says its movies know of it.
    func reserveResume(atOrAfter slot: Int64) -> Int64 {
        state.withLock { state in
            let made = max(slot, state.nextSlot)
            if made > 0 { state.requests.append(made) }
            state.pendingResumes.append(made)
            return made
        }
    }

    /// The movies of the resume at `slot` (`reserveResume`) were told.
    func resumeTold(_ slot: Int64) {
        state.withLock { state in
            if let index = state.pendingResumes.firstIndex(of: slot) { state.pendingResumes.remove(at: index) }
        }
    }

    /// Takes back keyframes asked for at `slots` (as `requestKeyframe` made them) that the encoder has not sent
    /// yet: one request each, so another subscriber's at the same slot stands.
    func withdrawKeyframes(_ slots: [Int64]) {
        guard !slots.isEmpty else { return }
        state.withLock { state in
            for slot in slots where slot >= state.nextSlot {
                if let index = state.requests.firstIndex(of: slot) { state.requests.remove(at: index) }
            }
        }
    }

    /// Subscriber `id` is paused from slot `slot` on.
    func paused(_ id: Int, from slot: Int64) {
        state.withLock { state in state.subscribers[id]?.pause = (slot, nil) }
    }

    /// Subscriber `id`'s pictures end before slot `slot` (its duration limit, which a resume moves on; its stop).
    func ends(_ id: Int, at slot: Int64) {
        state.withLock { state in state.subscribers[id]?.end = slot }
    }

    /// Subscriber `id` resumes at slot `slot` (the encoder may skip the slots before it).
    func resumed(_ id: Int, at slot: Int64) {
        state.withLock { state in state.subscribers[id]?.pause?.until = slot }
    }

    /// The first slot the encoder has not sent yet.
    var nextSlot: Int64 { state.withLock { $0.nextSlot } }

    var origin: Timestamp? { state.withLock { $0.origin } }

    /// Waits for the encoder (for the stream's description: a subscriber never calls it).
    func waitForEncoder() throws -> Encoder {
        try state.wait { state -> Result<Encoder, ReelError>? in
            if let encoder = state.encoder { return .success(encoder) }
            if let failure = state.failure { return .failure(.runtime(failure)) }
            return state.ended ? .failure(.runtime("the session ended before the movie's encoder opened")) : nil
        }.get()
    }

    /// What a take brought besides packets.
    struct Take {
        var origin: Timestamp?
        /// Every packet the encoder made has been taken.
        var ended: Bool
        /// The slots of the packets taken whose pictures repeat the slot before's.
        var repeatedSlots: [Int64] = []
    }

    /// The packets subscriber `id` has not taken yet, each a new reference in a packet from `pool` (or a new
    /// one). With a `deadline`, waits until there is one, the encoder ended or the deadline passed. Throws
    /// when the encoder failed or the subscriber fell behind.
    func take(_ id: Int, into taken: inout [Packet], pool: inout [Packet], deadline: Int64? = nil) throws -> Take {
        let ready = { (state: inout State) -> Bool in
            state.fellBehind.contains(id) || state.failure != nil || state.ended || (state.subscribers[id].map { $0.cursor < state.end } ?? true)
        }
        if let deadline { _ = state.wait(until: { ready(&$0) ? true : nil }, deadline: deadline) }
        // An encoder that waits for its subscribers (unpaced inputs) is woken once this one has taken.
        let body = { (state: inout State) throws -> Take in
            if state.fellBehind.contains(id) { throw EncodedPacketLog.fellBehind }
            if let failure = state.failure { throw ReelError.runtime(failure) }
            guard var subscriber = state.subscribers[id] else { return Take(origin: state.origin, ended: true) }
            var repeatedSlots: [Int64] = []
            for index in (subscriber.cursor - state.base)..<state.packets.count {
                let copy = pool.popLast() ?? Packet()
                try copy.reference(state.packets[index])
                taken.append(copy)
                if state.repeated[index] { repeatedSlots.append(copy.pts) }
            }
            subscriber.cursor = state.end
            state.subscribers[id] = subscriber
            state.prune()
            return Take(origin: state.origin, ended: state.ended, repeatedSlots: repeatedSlots)
        }
        return try encoderWaits ? state.withLockNotifying(body) : state.withLock(body)
    }

    /// Subscriber `id`'s movie finished: nothing is kept for it.
    func leave(_ id: Int) {
        let done = state.withLockNotifying { state in
            state.subscribers[id] = nil
            state.fellBehind.remove(id)
            state.keepWakes()
            state.prune()
            return state.letGoOfEncoderIfDone()
        }
        withExtendedLifetime(done) {}  // closed here, outside the lock
    }

    /// Packets kept for subscribers that have not taken them yet, for the tests.
    var heldPackets: Int { state.withLock { $0.packets.count } }
}
