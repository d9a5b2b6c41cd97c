import FFmpegCore
import Synchronization
import SystemSupport

/// One movie's place on a SharedVideoEncoder: its cursor in the encoder's log and the windows of slots it
/// holds (EncoderWindows). The edges are decided on the thread that asks for them, when it asks — a pause,
/// a resume, a stop come from any thread (MovieOutput, the session, the control socket) — as keyframes the
/// encoder will make there, so the movie's pictures and its sound (PauseRequests gets the same instants)
/// leave out the same whole frames however late the movie's thread takes them. A movie in segments asks for
/// the keyframes of its boundaries ahead of the encoder (`boundaryHorizon`), on its own timeline, and takes
/// back those a pause or a stop moved.
final class EncoderSubscription: Sendable {
    let encoder: SharedVideoEncoder
    let id: Int
    private struct State {
        var windows = EncoderWindows()
        /// The first segment boundary (its index) not asked for yet, and the encoder's slots asked for.
        var nextBoundary = 1
        var boundaryRequests: [Int64] = []
    }
    private let state: Locked<State>
    /// The duration limit on the movie's own timeline (a slot), asked for again at each resume.
    private let slotLimit: Int64?
    /// The movie's slot of its segment boundary `index` (1, 2 ...): segments by duration.
    private let boundarySlot: (@Sendable (Int) -> Int64)?
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

    /// Subscriber `id` of `encoder` (SharedVideoEncoders.subscribe); `wake` runs on the encoder's thread when
    /// there are packets to take.
    init(_ encoder: SharedVideoEncoder, id: Int, slotLimit: Int64?, boundarySlot: (@Sendable (Int) -> Int64)? = nil,
         join: Join, wake: @escaping @Sendable () -> Void) {
        encoder.log.setWake(id, wake)
        self.encoder = encoder
        self.id = id
        self.slotLimit = slotLimit
        self.boundarySlot = boundarySlot
        dropsBefore = encoder.queue.droppedCount
        state = Locked(State())
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
            if let slotLimit, let end = state.windows.encoderSlot(ofMovieSlot: slotLimit) {
                _ = encoder.log.requestKeyframe(atOrAfter: end)
            }
            requestBoundaries(&state, through: EncoderSubscription.boundaryHorizon)
        }
        joined.store(true, ordering: .releasing)
    }

    /// Whether the movie joined its encoder (a stop before it leaves the movie nothing to wait for).
    var hasJoined: Bool { joined.load(ordering: .acquiring) }

    var current: EncoderWindows { state.withLock { $0.windows } }

    /// Pictures the encoder dropped since the movie joined.
    var droppedPictures: Int { encoder.queue.droppedCount - dropsBefore }

    /// The movie pauses now: the keyframe its pictures stop before; returns the session time it starts at
    /// (nil before the encoder's first picture), where the sound stops too.
    func pause(atMicroseconds time: Int64) -> Int64? {
        state.withLock { state in
            let slot = encoder.requestKeyframe(atMicroseconds: time)
            let position = state.windows.movieSlot(of: slot)
            state.windows.pause(at: slot)
            if let from = state.windows.pausedFrom {
                encoder.log.paused(id, from: from)
                // The boundaries from the pause on fall later, by the paused slots: asked again at the resume.
                withdrawBoundaries(&state, from: from, movieSlot: position)
            }
            return encoder.microseconds(ofSlot: slot)
        }
    }

    /// The movie resumes now, at a keyframe; returns the session time it starts at, where the sound goes on.
    func resume(atMicroseconds time: Int64) -> Int64? {
        state.withLock { state in
            let slot = encoder.requestKeyframe(atMicroseconds: time)
            state.windows.resume(at: slot)
            encoder.log.resumed(id, at: slot)
            // The limit now falls later on the encoder's timeline, by the paused slots.
            if let slotLimit, let end = state.windows.encoderSlot(ofMovieSlot: slotLimit) {
                _ = encoder.log.requestKeyframe(atOrAfter: end)
            }
            if let position = state.windows.movieSlot(of: slot) {
                requestBoundaries(&state, through: position + EncoderSubscription.boundaryHorizon)
            }
            return encoder.microseconds(ofSlot: slot)
        }
    }

    /// The movie stops now: its pictures end before the keyframe the encoder makes at this instant.
    func stop() {
        state.withLock { state in
            let slot = encoder.requestKeyframe(atMicroseconds: encoder.now)
            state.windows.stop(at: slot)
            withdrawBoundaries(&state, from: slot, movieSlot: nil)
        }
    }

    /// The movie finished: the encoder keeps nothing for it (and ends once no movie is left).
    func leave() {
        state.withLock { state in withdrawBoundaries(&state, from: 0, movieSlot: nil) }
        encoder.log.leave(id)
    }

    // MARK: segment boundaries

    /// The movie took its picture of slot `slot` (its own timeline): the boundaries up to `boundaryHorizon`
    /// past it are asked for (nothing to do until the movie nears the next; on the movie's thread).
    func requestBoundaries(pastMovieSlot slot: Int64) {
        guard let boundarySlot, boundarySlot(state.withLock { $0.nextBoundary }) <= slot + EncoderSubscription.boundaryHorizon else { return }
        state.withLock { state in requestBoundaries(&state, through: slot + EncoderSubscription.boundaryHorizon) }
    }

    /// Asks the encoder for the keyframes of the boundaries up to the movie's slot `limit`, where they fall on
    /// the encoder's timeline now (none while paused or once stopped: a resume asks again).
    private func requestBoundaries(_ state: inout State, through limit: Int64) {
        guard let boundarySlot, !state.windows.isPaused, state.windows.end == nil else { return }
        while case let movieSlot = boundarySlot(state.nextBoundary), movieSlot <= limit,
              let slot = state.windows.encoderSlot(ofMovieSlot: movieSlot) {
            state.boundaryRequests.removeAll { $0 < encoder.log.nextSlot }  // made already
            state.boundaryRequests.append(encoder.log.requestKeyframe(atOrAfter: slot))
            state.nextBoundary += 1
        }
    }

    /// Takes back the boundary keyframes asked for from the encoder's slot `slot` on (a pause or a stop moved
    /// them); with the movie's slot of the pause, the boundaries from there are asked again at the resume.
    private func withdrawBoundaries(_ state: inout State, from slot: Int64, movieSlot: Int64?) {
        guard let boundarySlot else { return }
        encoder.log.withdrawKeyframes(state.boundaryRequests.filter { $0 > slot })
        state.boundaryRequests.removeAll()
        guard let movieSlot else { return }
        while state.nextBoundary > 1 && boundarySlot(state.nextBoundary - 1) >= movieSlot { state.nextBoundary -= 1 }
    }
}
