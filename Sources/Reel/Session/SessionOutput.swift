import FFmpegCore

/// What a running session hands its captured items to: a movie, the photos asked of it, a live view, the
/// first-frame stills (and, as later outputs arrive, a live stream, a replay buffer, a meter). SessionEngine
/// knows its outputs only through this protocol: it offers each item to every output in the order they were
/// added, asks whether an output is done or waiting, and ends them all when the session ends.
///
/// A new kind of output is a new conformance; nothing in the engine changes.
protocol SessionOutput: AnyObject, Sendable {
    /// How the output's own end bears on the session's.
    var role: SessionOutputRole { get }

    /// Starts the output's threads (called once, when it is added to the session).
    func start()

    /// Whether the output still takes items of this type (a movie past its duration limit takes no more).
    func wants(_ type: MediaType) -> Bool

    /// Hands over an item, on the session's thread. An output that keeps it past the call holds its pool
    /// slot (`buffer.hold`) and releases it when done; one that cannot keep up skips it. Throwing ends the
    /// session as failed.
    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws

    /// The output stopped by itself (a limit) and takes nothing more.
    var isDone: Bool { get }

    /// Work that waits for the next picture (a photo asked for) and holds the session open until it comes.
    var isWaiting: Bool { get }

    /// The session's movies pause or resume.
    func setPaused(_ paused: Bool)

    /// The session ended: the output stops taking items and starts finishing (closes its stream, fails what
    /// still waits, drains its encoders).
    func end(_ ending: SessionEngine.Ending)

    /// Waits until the output has finished after `end`; a movie's result, nil for outputs without one.
    func waitForResult() -> RecordingResult?

    /// The result, once the output finished by itself (a movie that reached its limits), else nil.
    var finishedResult: RecordingResult? { get }

    /// The output finished by itself and will take nothing more: a session without a movie of its own lets
    /// go of it (and of its pool slots) while it runs.
    var hasFinishedByItself: Bool { get }

    /// CPU time of the output's own threads once it finished (the rest of the codecs' threads is counted
    /// as theirs in the results' stages).
    var ownThreadNanoseconds: Int64 { get }

    /// Adds what the output made to the session's results (the first-frame still's path), once all finished.
    func annotate(_ results: inout [RecordingResult])
}

/// Whether an output's end can end the session.
enum SessionOutputRole: Sendable {
    /// A movie: once every such output has stopped by itself (its limits), the session has nothing more to
    /// capture and ends. A live device that stalls ends the session while one of them still wants its media.
    case finite
    /// A photo, a live view, a still: it goes on for as long as the session does and never ends it.
    case companion
    /// An encoder that movies take their pictures from (SharedVideoEncoder): it never ends the session, but
    /// a live device that stalls while it still wants its media ends the session, as its movies' would.
    case encoder
}

extension SessionOutput {
    var isWaiting: Bool { false }
    func setPaused(_ paused: Bool) {}
    func waitForResult() -> RecordingResult? { nil }
    var finishedResult: RecordingResult? { nil }
    /// A movie that has its result.
    var hasFinishedByItself: Bool { role == .finite && finishedResult != nil }
    var ownThreadNanoseconds: Int64 { 0 }
    func annotate(_ results: inout [RecordingResult]) {}
}
