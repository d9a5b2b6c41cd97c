/// A snapshot of a capture session for status displays and the control socket (`status`).
public struct SessionStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case ready, recording, paused, finished
    }

    public var state: State
    /// The inputs now feeding the session (after any switch; "none" for black pictures or silence).
    public var video: String?
    public var audio: String?
    /// Several video inputs composed: each input (after any switch) and the layout's name; nil otherwise.
    public var videoInputs: [String]? = nil
    public var layout: String? = nil
    /// The movies' output paths (the main one first).
    public var outputs: [String]
    /// The main movie's latest progress report.
    public var progress: RecordingProgress?
    /// Seconds on a live recording's timeline now: where a switch or photo asked for now lands in the
    /// movies (before any pause is left out); a session without pictures counts from its start. Nil before the
    /// first picture and for unpaced inputs.
    public var timeline: Double? = nil
    /// Once finished.
    public var result: RecordingResult?
    /// The main movie's pushes to servers, each as its latest connection change says (nil without any).
    public var livePushes: [LiveConnection]? = nil
    /// The sound's latest levels while recording (see AudioLevels; nil without sound or before the first 100 ms).
    public var levels: AudioLevels? = nil
    /// Pictures the inputs delivered since the start, and those they dropped (a live source outrunning the
    /// session); nil when not recording.
    public var capturedPictures: Int? = nil
    public var droppedPictures: Int? = nil
    /// What the replay buffer holds now (its newest, with several), while recording.
    public var replay: ReplayHeld? = nil

    public struct ReplayHeld: Sendable, Codable, Equatable {
        public var seconds: Double
        public var bytes: Int
    }

    /// What the session keeps up to date while it runs.
    struct Live: Sendable {
        var video: String?
        var audio: String?
        /// The camera or screen recording now, for camera controls.
        var videoSpec: DeviceSpec? = nil
        var paused = false
        var progress: RecordingProgress?
        /// Each push's latest connection change, in the order they first reported.
        var pushes: [LiveConnection] = []
        /// The sound meter's latest update, and the streams of `CaptureSession.audioLevels()` to hand it to.
        var levels: AudioLevels?
        var levelStreams: [AsyncStream<AudioLevels>.Continuation] = []

        mutating func update(_ connection: LiveConnection) {
            if let index = pushes.firstIndex(where: { $0.url == connection.url }) {
                pushes[index] = connection
            } else {
                pushes.append(connection)
            }
        }
    }
}
