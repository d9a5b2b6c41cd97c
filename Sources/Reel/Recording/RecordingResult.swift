/// What a finished recording produced, as AVCaptureFileOutputRecordingDelegate's didFinishRecording reports.
public struct RecordingResult: Sendable, Codable, Equatable {
    public var output: String
    public var stopReason: StopReason
    /// The file is finalized and playable (also when a limit or a signal stopped it).
    public var recordedSuccessfully: Bool
    /// Seconds of media in the file (the longer track).
    public var duration: Double
    public var bytes: Int64
    public var videoFrames: Int
    /// Frames the encoder could not keep up with (live sources only).
    public var droppedFrames: Int
    public var audioSamples: Int64
    public var preset: String
    /// Wall-clock seconds from start to finalized file.
    public var elapsed: Double
    public var videoDevice: String?
    public var audioDevice: String?
    /// What went wrong, for `failed`, `deviceLost` and `diskFull`.
    public var error: String?
    /// The first-frame still, when one was asked for and written.
    public var still: String?
    /// Where the CPU time went (see StageTimes).
    public var stages: StageTimes?
    /// Movie fragments the file was written in (0 without fragments).
    public var fragments: Int? = nil
    /// Bytes written to finalize the file: the trailer, or with fragments the last fragment, the complete
    /// index and the 8-byte switch that retires the fragment headers.
    public var finalizationBytes: Int64? = nil
    /// Pictures shown again to keep the track at the preset's constant rate: a source slower than the
    /// preset (24 fps into 30 repeats one in four), or one that starts after the movie's timeline does.
    public var duplicatedFrames: Int? = nil
    /// With tiers: every movie's result, the main one first (the fields above repeat the main one's).
    public var outputs: [RecordingResult]? = nil
    /// A segmented recording's files in order (see Segmentation); `output` is then the name pattern and
    /// the figures above are the totals.
    public var segments: [SegmentResult]? = nil
    /// The live streams of the main movie (`--live`), each with what it wrote.
    public var live: [LiveResult]? = nil
    /// The alarms of the recording (with `alarms` in the configuration), in the order they started; one still on
    /// at the end has no `end`.
    public var alarms: [Alarm]? = nil
    /// The movies saved from the recording's replay buffer while it ran (`save-replay`), in order.
    public var replays: [ReplaySave]? = nil
    /// A triggered recording's movies (`--trigger`), in order, each with its events and span.
    public var triggered: [TriggeredMovie]? = nil
    /// A triggered recording's events, in the order they started (one still on at the end has no `end`).
    public var triggers: [TriggerEvent]? = nil
}

extension RecordingResult {
    /// `duration` as a Swift `Duration`.
    public var mediaDuration: Duration { .milliseconds(Int64((duration * 1000).rounded())) }
}

/// Live figures while recording.
public struct RecordingProgress: Sendable, Equatable, Codable {
    public var elapsed: Double
    public var mediaDuration: Double
    public var bytes: Int64
    public var videoFrames: Int
    public var droppedFrames: Int
    /// Pictures encoded per wall-clock second over the last report interval.
    public var framesPerSecond: Double
    /// Seconds the input file lasts, when a transcode knows it (for a percentage and an ETA).
    public var inputDuration: Double? = nil
    /// The segment being written (1, 2 ...), when the recording is segmented.
    public var segment: Int? = nil
}

public enum RecordingEvent: Sendable {
    case started(output: String)
    case progress(RecordingProgress)
    /// A segmented recording began a file (its final name; 1, 2 ...).
    case segmentStarted(output: String, index: Int)
    /// A segment is finalized (or, with `recordedSuccessfully` false, could not be).
    case segmentFinished(SegmentResult)
    /// A live stream stopped before its movie (its folder failed: full, removed, unwritable; its server
    /// refused it); the movie
    /// records on. The result says what it wrote and why it stopped.
    case liveStopped(LiveResult)
    /// A pushed live stream connected, lost its server, or will try it again (LiveConnection.state).
    case liveConnection(LiveConnection)
    /// The sound's levels, about ten a second while a live sound input records (see AudioLevels).
    case levels(AudioLevels)
    /// An alarm began (its condition lasted the rule's seconds) or ended (`end` is set).
    case alarmStarted(Alarm)
    case alarmEnded(Alarm)
    /// A trigger's event began (its condition lasted TriggerRule.onSeconds) or ended (`end` is set).
    case triggerStarted(TriggerEvent)
    case triggerEnded(TriggerEvent)
    /// A triggered movie is finalized (or, with an `error`, could not be kept).
    case triggeredMovie(TriggeredMovie)
    /// One of several composed video inputs was lost (its rectangle shows a placeholder; the recording goes
    /// on) or is back.
    case videoInput(VideoInputChange)
    case finished(RecordingResult)
}

/// A composed video input lost or back (`RecordingEvent.videoInput`).
public struct VideoInputChange: Sendable, Codable, Equatable {
    /// From 1, in the order the inputs were given.
    public var input: Int
    public var spec: String
    public var lost: Bool
    /// Why it is lost (it ended, an error, seconds without a picture).
    public var reason: String?
}
