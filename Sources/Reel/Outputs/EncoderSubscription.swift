import FFmpegCore
import Synchronization
import SystemSupport

/// One movie's place on a SharedVideoEncoder: its cursor in the encoder's log and the windows of slots it
/// holds (EncoderWindows). The edges are decided on the thread that asks for them, when it asks — a pause,
/// a resume, a stop come from any thread (MovieOutput, the session, the control socket) — as keyframes the
/// encoder will make there, so the movie's pictures and its sound (PauseRequests gets the same instants)
/// leave out the same whole frames however late the movie's thread takes them. A movie asks for the keyframes
/// of its grids (KeyframeGrid: its segment boundaries by duration, its live streams' segments) ahead of the
/// encoder (`boundaryHorizon`), on its own timeline, and takes back those a pause or a stop moved.
final class EncoderSubscription: Sendable {
    let encoder: SharedVideoEncoder
    let id: Int
    /// Keyframes at slots of the movie's own timeline: grid line `index` (1, 2 ...) at `slot(index)`.
    struct KeyframeGrid: Sendable {
        let slot: @Sendable (Int) -> Int64
        /// The first line not asked for yet.
        var next = 1

        init(slot: @escaping @Sendable (Int) -> Int64) { self.slot = slot }

        /// A keyframe at each multiple of `seconds` (a live stream's segments), at the first slot at or after
        /// it: where a movie that encodes its own forces them (KeyframeSchedule).
        static func every(_ seconds: Double, frameRate: Rational) -> KeyframeGrid {
            let rate = frameRate.doubleValue
            return KeyframeGrid { index in Int64(((Double(index) * seconds - 1e-9) * rate - 1e-9).rounded(.up)) }
        }
    }
    private struct State {
        var windows = EncoderWindows()
        var grids: [KeyframeGrid] = []
        /// The encoder's slots asked for the grids' lines.
        var gridRequests: [Int64] = []
    }
    private let state: Locked<State>
    /// The duration limit on the movie's own timeline (a slot), asked for again at each resume.
    private let slotLimit: Int64?
    /// How far past the movie's newest picture its boundaries are asked for: further than the encoder can be
    /// ahead of the movie (the packets the log keeps for it, and the pictures in the encoder), so each is
    /// asked before the encoder sends its slot.
    static let boundaryHorizon = Int64(EncodedPacketLog.maximumLag + 150)
    /// Pictures the encoder had dropped (it fell behind a live source) before the movie joined.
    private let dropsBefore: Int

    /// The movie has joined (its start slot is known): the session's thread checks this at every sound.
    private let joined = Atomic<Bool>(false)

    /// Where a movie's pictures start on its encoder's timeline.
    enum Join: Sendable {
        /// The encoder's first picture (slot 0), the session's own movies' first: a movie added before the
        /// start. Sound that starts later is preceded by silence, as in the session's own movies.
        case atFirstPicture
        /// The next picture: a movie without sound added while the session runs.
        case now
        /// Its first sound (`join(atItemTime:)`): a movie with sound added while the session runs, whose
        /// sound holds every sample the session hands it from there on.
        case atFirstSound
    }

    /// The session time up to which the movie was handed items (its OutputQueue's), for pauses without a clock.
    private let handed: @Sendable () -> Int64?

    /// Subscriber `id` of `encoder` (SharedVideoEncoders.subscribe); `wake` runs on the encoder's thread when
    /// there are packets to take; `handed` says up to when the movie was handed items.
    init(_ encoder: SharedVideoEncoder, id: Int, slotLimit: Int64?, grids: [KeyframeGrid] = [],
         join: Join, handed: @escaping @Sendable () -> Int64? = { nil }, wake: @escaping @Sendable () -> Void) {
        encoder.log.setWake(id, wake)
        self.encoder = encoder
        self.handed = handed
        self.id = id
        self.slotLimit = slotLimit
        dropsBefore = encoder.queue.droppedCount
        state = Locked(State(grids: grids))
        switch join {
        case .atFirstPicture: self.join(at: encoder.log.requestKeyframe(atOrAfter: 0))
        case .now: self.join(at: encoder.requestKeyframe(atMicroseconds: encoder.now))
        case .atFirstSound: break
        }
    }

    /// The movie's first sound, captured at session time `microseconds`, came (on the session's thread, as it
    /// is handed over; once): the movie joins at the first slot from that instant, a keyframe. Its sound
    /// holds every sample from there on, the session hands it all that follow.
    func join(atItemTime microseconds: Int64) {
        guard !joined.load(ordering: .acquiring) else { return }
        join(at: encoder.requestKeyframe(atOrAfterItemAt: microseconds))
    }

    private func join(at slot: Int64) {
        state.withLock { state in
            state.windows.join(at: slot)
            // Pauses asked before the join fall at it at the earliest.
            if let from = state.windows.pausedFrom { encoder.log.paused(id, from: from) }
            askForEnd(state)
            requestGrids(&state, through: EncoderSubscription.boundaryHorizon)
        }
        joined.store(true, ordering: .releasing)
    }

    /// Whether the movie joined its encoder (a stop before it leaves the movie nothing to wait for).
    var hasJoined: Bool { joined.load(ordering: .acquiring) }

    var current: EncoderWindows { state.withLock { $0.windows } }

    /// Pictures the encoder dropped since the movie joined.
    var droppedPictures: Int { encoder.queue.droppedCount - dropsBefore }

    /// Movies that pause and resume together (the session's own movies of one preset: SharedAudioEncoder)
    /// or one alone, at session time `time`: the keyframe their pictures stop before (`pausing`) or resume at,
    /// one for all; returns the session time it starts at (nil before the encoder's first picture), where their
    /// sound stops or goes on. Of unpaced inputs (whose items do not come on the session's clock; `time` nil
    /// for a movie on the input's own timeline) it falls after every item the movies were handed (`handed`) and
    /// every picture the encoder sent: neither has passed it yet.
    static func together(_ subscriptions: [EncoderSubscription], pausing: Bool, atMicroseconds time: Int64?) -> Int64? {
        guard let encoder = subscriptions.first?.encoder else { return time }
        let asked = if let time, encoder.paced { encoder.slot(atOrAfter: time) ?? 0 }
                    else { encoder.slot(atOrAfter: subscriptions.compactMap { $0.handed() }.max() ?? 0) ?? 0 }
        // A resume's slot is held for it until every movie resumed there (an encoder skipping while all are
        // paused must not pass it first).
        let slot = pausing ? encoder.log.requestKeyframe(atOrAfter: asked) : encoder.log.reserveResume(atOrAfter: asked)
        for subscription in subscriptions {
            if pausing { subscription.pause(atSlot: slot) } else { subscription.resume(atSlot: slot) }
        }
        if !pausing { encoder.log.resumeTold(slot) }
        return encoder.microseconds(ofSlot: slot)
    }

    /// The movie's pictures stop before the keyframe at `slot` (asked for already).
    private func pause(atSlot slot: Int64) {
        state.withLock { state in
            let position = state.windows.movieSlot(of: slot)
            state.windows.pause(at: slot)
            if let from = state.windows.pausedFrom {
                encoder.log.paused(id, from: from)
                // The boundaries from the pause on fall later, by the paused slots: asked again at the resume.
                withdrawGrids(&state, from: from, movieSlot: position)
            }
        }
    }

    /// The movie's pictures go on from the keyframe at `slot` (asked for already).
    private func resume(atSlot slot: Int64) {
        state.withLock { state in
            state.windows.resume(at: slot)
            encoder.log.resumed(id, at: slot)
            // The limit now falls later on the encoder's timeline, by the paused slots.
            askForEnd(state)
            if let position = state.windows.movieSlot(of: slot) {
                requestGrids(&state, through: position + EncoderSubscription.boundaryHorizon)
            }
        }
    }

    /// The movie stops now: its pictures end before the keyframe the encoder makes at this instant.
    func stop() {
        state.withLock { state in
            let slot = encoder.requestKeyframe(atMicroseconds: encoder.now)
            state.windows.stop(at: slot)
            tellEnd(state)
            withdrawGrids(&state, from: slot, movieSlot: nil)
        }
    }

    /// The encoder's slot of the movie's duration limit as it falls now (later by each pause so far).
    private func limitSlot(_ windows: EncoderWindows) -> Int64? {
        slotLimit.flatMap { windows.encoderSlot(ofMovieSlot: $0) }
    }

    /// Asks the encoder for the keyframe at the movie's limit as it falls now (at the join, at each resume),
    /// and tells it where the movie ends.
    private func askForEnd(_ state: State) {
        if let end = limitSlot(state.windows) { _ = encoder.log.requestKeyframe(atOrAfter: end) }
        tellEnd(state)
    }

    /// Tells the encoder where the movie's pictures end on its timeline (its stop, or its duration limit as
    /// it falls now): once every movie of the encoder has ended there or is paused, it drains at once rather
    /// than encode on until the keyframe there comes out (the movie counts its slots: `hasAllPictures`).
    private func tellEnd(_ state: State) {
        if let end = [limitSlot(state.windows), state.windows.end].compactMap({ $0 }).min() { encoder.log.ends(id, at: end) }
    }

    /// Whether a movie that took `taken` pictures (one per slot of its timeline, in decode order) has every
    /// one it will get: its duration limit's (`limit`, on its own timeline) or its stop's.
    func hasAllPictures(taken: Int, limit: Int64?) -> Bool {
        state.withLock { EncoderSubscription.hasAll($0.windows, taken: taken, limit: limit) }
    }

    private static func hasAll(_ windows: EncoderWindows, taken: Int, limit: Int64?) -> Bool {
        guard let last = [limit, windows.end.map { windows.slotsHeld(before: $0) }].compactMap({ $0 }).min() else { return false }
        return Int64(taken) >= last
    }

    /// The movie took its picture of slot `slot` (its own timeline), its `taken`th: the grids' lines up to
    /// `boundaryHorizon` past it are asked for (nothing to do until the movie nears the next); returns whether
    /// it has every picture it will get (`hasAllPictures`). On the movie's thread, once per picture: one lock.
    func took(movieSlot slot: Int64, taken: Int, limit: Int64?) -> Bool {
        state.withLock { state in
            if state.grids.contains(where: { $0.slot($0.next) <= slot + EncoderSubscription.boundaryHorizon }) {
                requestGrids(&state, through: slot + EncoderSubscription.boundaryHorizon)
            }
            return EncoderSubscription.hasAll(state.windows, taken: taken, limit: limit)
        }
    }

    /// The movie finished: the encoder keeps nothing for it (and ends once no movie is left).
    func leave() {
        state.withLock { state in withdrawGrids(&state, from: 0, movieSlot: nil) }
        encoder.log.leave(id)
    }

    // MARK: keyframes for the movie's streams and grids

    /// A live stream joins the movie now: its first picture is the keyframe the encoder makes at this instant
    /// (one more for every movie of the encoder, instead of the stream waiting up to a GOP), or the movie's
    /// resume's while it is paused; with `grid`, the stream's segments are cut on it, from the movie's start.
    /// Returns the movie's slot of that first picture (0 before the movie's first, a keyframe anyway).
    func joinStream(grid: KeyframeGrid?) -> Int64 {
        state.withLock { state in
            let windows = state.windows
            // Where the movie is: the slot after the last it held before a pause, or the encoder's next.
            let position = windows.slotsHeld(before: windows.pausedFrom ?? encoder.log.nextSlot)
            if var grid {
                while grid.slot(grid.next) < position { grid.next += 1 }  // lines passed are not asked for
                state.grids.append(grid)
            }
            guard windows.start != nil, !windows.isPaused else { return position }
            let slot = encoder.requestKeyframe(atMicroseconds: encoder.now)
            let first = windows.movieSlot(of: slot) ?? position
            requestGrids(&state, through: first + EncoderSubscription.boundaryHorizon)
            return first
        }
    }

    /// Asks the encoder for the keyframes of the grids' lines up to the movie's slot `limit`, where they fall
    /// on the encoder's timeline now (none while paused or once stopped: a resume asks again).
    private func requestGrids(_ state: inout State, through limit: Int64) {
        guard !state.windows.isPaused, state.windows.end == nil else { return }
        for index in state.grids.indices {
            while case let movieSlot = state.grids[index].slot(state.grids[index].next), movieSlot <= limit,
                  let slot = state.windows.encoderSlot(ofMovieSlot: movieSlot) {
                state.gridRequests.removeAll { $0 < encoder.log.nextSlot }  // made already
                state.gridRequests.append(encoder.log.requestKeyframe(atOrAfter: slot))
                state.grids[index].next += 1
            }
        }
    }

    /// Takes back the grids' keyframes asked for from the encoder's slot `slot` on (a pause or a stop moved
    /// them); with the movie's slot of the pause, the lines from there are asked again at the resume.
    private func withdrawGrids(_ state: inout State, from slot: Int64, movieSlot: Int64?) {
        guard !state.grids.isEmpty else { return }
        encoder.log.withdrawKeyframes(state.gridRequests.filter { $0 > slot })
        state.gridRequests.removeAll()
        guard let movieSlot else { return }
        for index in state.grids.indices {
            while state.grids[index].next > 1 && state.grids[index].slot(state.grids[index].next - 1) >= movieSlot {
                state.grids[index].next -= 1
            }
        }
    }
}
