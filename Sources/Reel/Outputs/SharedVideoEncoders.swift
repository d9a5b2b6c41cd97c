import SystemSupport

/// A running session's shared video encoders (SharedVideoEncoder), one per preset and rendition: the
/// movies on the session's timeline (`subscribes`) subscribe to the one of their preset, made for the first
/// of them and added to the session as an output of its own.
final class SharedVideoEncoders: Sendable {
    private let encoders = Locked<[SharedVideoEncoder]>([])

    /// Whether a movie takes its pictures from a shared encoder: a movie with video on the session's timeline
    /// (the session's own, live or of a file; a tier, a MovieOutput; with its live streams and replay buffer)
    /// whose files are cut by time alone (one file, or segments by duration, whose boundaries it asks the
    /// encoder for ahead). Cuts by size are decided from a file's own bytes after the pictures are encoded,
    /// too late to ask the encoder for their keyframes: such movies encode their own.
    static func subscribes(_ setup: MovieRecorder.Setup) -> Bool {
        setup.hasVideo && setup.writesFile && setup.segmentation?.size == nil && setup.limits.maxFileSize == nil
    }

    /// The encoders made so far (to add to the session when it starts).
    var all: [SharedVideoEncoder] { encoders.withLock { $0 } }

    /// Subscribes the movie to the encoder of its preset (`setup.sharedVideo`); returns the encoder when it is
    /// a new one, for the caller to add to the session with its picture slots (SharedVideoEncoder.pictureSlots).
    func subscribe(_ setup: inout MovieRecorder.Setup, buffer: CaptureBuffer, paced: Bool) -> SharedVideoEncoder? {
        let key = SharedVideoEncoder.Key(setup)
        return encoders.withLock { encoders in
            // Those whose last movie left are not kept (the session lets go of them too).
            encoders.removeAll(where: \.isDone)
            for encoder in encoders where encoder.key == key {
                if let id = encoder.log.subscribe() {
                    setup.sharedVideo = (encoder, id)
                    return nil
                }
            }
            // None, or the one there ended with its last movie.
            encoders.removeAll { $0.key == key }
            let encoder = SharedVideoEncoder(key: key, buffer: buffer, paced: paced, sessionStart: setup.sessionStart,
                                             fromInputStart: setup.timelineFromInputStart)
            setup.sharedVideo = encoder.log.subscribe().map { (encoder, $0) }
            encoders.append(encoder)
            return encoder
        }
    }
}
