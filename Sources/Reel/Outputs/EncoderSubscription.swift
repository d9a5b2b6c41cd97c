import FFmpegCore
import Synchronization
import SystemSupport

/// One movie's place on a SharedVideoEncoder: its cursor in the encoder's log and the windows of slots it
/// holds (EncoderWindows). The edges are decided on the thread that asks for them, when it asks — a pause,
/// a resume, a stop come from any thread (MovieOutput, the session, the control socket) — as keyframes the
/// encoder will make there, so the movie's pictures and its sound (PauseRequests gets the same instants)
/// leave out the same whole frames however late the movie's thread takes them.
final class EncoderSubscription: Sendable {
    let encoder: SharedVideoEncoder
    let id: Int
    private let windows: Locked<EncoderWindows>
    /// The duration limit on the movie's own timeline (a slot), asked for again at each resume.
    private let slotLimit: Int64?
    /// Pictures the encoder had dropped (it fell behind a live source) before the movie joined.
    private let dropsBefore: Int

    /// The movie has joined (its start slot is known): the session's thread checks this at every sound.
    private let joined = Atomic<Bool>(false)

    /// Subscriber `id` of `encoder` (SharedVideoEncoders.subscribe); `wake` runs on the encoder's thread when
    /// there are packets to take. A movie without sound joins now, at the next picture; one with sound at its
    /// first (`join(atItemTime:)`): its pictures start where its sound does.
    init(_ encoder: SharedVideoEncoder, id: Int, slotLimit: Int64?, joinsAtFirstSound: Bool,
         wake: @escaping @Sendable () -> Void) {
        encoder.log.setWake(id, wake)
        self.encoder = encoder
        self.id = id
        self.slotLimit = slotLimit
        dropsBefore = encoder.queue.droppedCount
        windows = Locked(EncoderWindows())
        if !joinsAtFirstSound { join(at: encoder.requestKeyframe(atMicroseconds: encoder.now)) }
    }

    /// The movie's first sound, captured at session time `microseconds`, came (on the session's thread, as it
    /// is handed over; once): the movie joins at the first slot from that instant, a keyframe. Its sound
    /// holds every sample from there on, the session hands it all that follow.
    func join(atItemTime microseconds: Int64) {
        guard !joined.load(ordering: .acquiring) else { return }
        join(at: encoder.requestKeyframe(atOrAfterItemAt: microseconds))
    }

    private func join(at slot: Int64) {
        windows.withLock { windows in
            windows.join(at: slot)
            // Pauses asked before the join fall at it at the earliest.
            if let from = windows.pausedFrom { encoder.log.paused(id, from: from) }
            if let slotLimit, let end = windows.encoderSlot(ofMovieSlot: slotLimit) {
                _ = encoder.log.requestKeyframe(atOrAfter: end)
            }
        }
        joined.store(true, ordering: .releasing)
    }

    /// Whether the movie joined its encoder (a stop before it leaves the movie nothing to wait for).
    var hasJoined: Bool { joined.load(ordering: .acquiring) }

    var current: EncoderWindows { windows.withLock { $0 } }

    /// Pictures the encoder dropped since the movie joined.
    var droppedPictures: Int { encoder.queue.droppedCount - dropsBefore }

    /// The movie pauses now: the keyframe its pictures stop before; returns the session time it starts at
    /// (nil before the encoder's first picture), where the sound stops too.
    func pause(atMicroseconds time: Int64) -> Int64? {
        windows.withLock { windows in
            let slot = encoder.requestKeyframe(atMicroseconds: time)
            windows.pause(at: slot)
            if let from = windows.pausedFrom { encoder.log.paused(id, from: from) }
            return encoder.microseconds(ofSlot: slot)
        }
    }

    /// The movie resumes now, at a keyframe; returns the session time it starts at, where the sound goes on.
    func resume(atMicroseconds time: Int64) -> Int64? {
        windows.withLock { windows in
            let slot = encoder.requestKeyframe(atMicroseconds: time)
            windows.resume(at: slot)
            encoder.log.resumed(id, at: slot)
            // The limit now falls later on the encoder's timeline, by the paused slots.
            if let slotLimit, let end = windows.encoderSlot(ofMovieSlot: slotLimit) {
                _ = encoder.log.requestKeyframe(atOrAfter: end)
            }
            return encoder.microseconds(ofSlot: slot)
        }
    }

    /// The movie stops now: its pictures end before the keyframe the encoder makes at this instant.
    func stop() {
        windows.withLock { windows in windows.stop(at: encoder.requestKeyframe(atMicroseconds: encoder.now)) }
    }

    /// The movie finished: the encoder keeps nothing for it (and ends once no movie is left).
    func leave() { encoder.log.leave(id) }
}
