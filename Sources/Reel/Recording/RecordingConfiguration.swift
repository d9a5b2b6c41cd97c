/// Everything a recording needs, as plain values.
public struct RecordingConfiguration: Sendable {
    /// Where the movie goes (a .mov path). Its folder must exist.
    public var outputPath: String
    /// The picture source; nil records audio only.
    public var video: DeviceSpec?
    /// More picture sources, composed with `video` (the first input) into one picture by `layout`.
    public var additionalVideo: [DeviceSpec] = []
    /// Where each video input goes when there are several (default: `VideoLayout.defaultName`).
    public var layout: VideoLayout? = nil
    /// Text and pictures drawn on the captured picture (on every output), in order.
    public var overlays: [Overlay] = []
    /// Filters each video input goes through as captured, after the preset's own (`Preset.Video.filters`).
    public var pictureFilters: [PictureFilterKind] = []
    /// The sound source; nil records video only.
    public var audio: DeviceSpec?
    /// More sound sources, mixed with `audio` into its one track (each at its spec's `gain`, see AudioMix), or
    /// with `audioTracks` `.separate` each recorded in a track of its own.
    public var additionalAudio: [DeviceSpec] = []
    public var audioTracks: AudioTrackMode = .mix
    /// The most sound inputs one session takes (mixed, or as tracks).
    public static let maximumAudioInputs = 8
    public var preset: Preset
    public var limits: RecordingLimits
    public var orientation: Orientation
    /// Replace an existing file at `outputPath` instead of refusing.
    public var overwrite: Bool
    /// A picture of the first captured frame (after scaling to the preset size), encoded from the raw frame,
    /// not decoded back out of the movie.
    public var firstFrameStill: StillRequest?
    /// Seconds between movie fragments: while recording, the file on disk plays up to its last fragment
    /// (as AVCaptureMovieFileOutput's movieFragmentInterval); a clean stop still gives a regular movie.
    /// 0 writes the index only at the end.
    public var fragmentInterval: Double = RecordingConfiguration.defaultFragmentInterval
    public static let defaultFragmentInterval: Double = 10
    /// The muxer holds a fragment in memory until it is cut (its moof must precede its data): past this many
    /// bytes a fragment is cut early, at any picture, so high bit rates cost no more memory than low ones.
    /// Only the first fragment after a forced keyframe then starts with one; players decode on from the
    /// previous fragment. Internal: tests lower it.
    var fragmentMemoryLimit: Int64 = 4 * 1024 * 1024
    /// Shorter fragments would mostly be keyframes and headers.
    public static let shortestFragmentInterval: Double = 0.5
    /// Fragment intervals other than 0 (off): half a second to a day.
    public static let fragmentIntervalRange: ClosedRange<Double> = shortestFragmentInterval...86_400
    /// Seconds a device may deliver nothing before it is lost: a millisecond to an hour.
    public static let deviceTimeoutRange: ClosedRange<Double> = 0.001...3600
    /// A live device (camera, microphone, screen) that delivers nothing for this many seconds counts as lost:
    /// the recording ends with `deviceLost` and the file is finalized. Before its first frame a device gets
    /// at least 10 s, as cameras and audio servers can be slow to start.
    public var deviceTimeout: Double = RecordingConfiguration.defaultDeviceTimeout
    public static let defaultDeviceTimeout: Double = 2
    /// With fragments, write under `outputPath` from the start, so a crash leaves a playable file there.
    /// Otherwise (and always without fragments) the movie is written under a hidden temporary name and
    /// renamed when finalized. Transcodes and batch jobs use the temporary name: a re-run must never
    /// mistake an interrupted output for a finished one.
    public var writesUnderFinalName = true
    /// `false`: the session runs its inputs without a movie of its own, as an AVCaptureSession runs without
    /// outputs, for previews, photos and movies added while it runs (`CaptureSession.addOutput(_:)`), until
    /// `stop()` or a lost device ends it (`reel serve` runs one). `outputPath`, `tiers`, `segmentation` and
    /// the limits are then not used; the preset sets what is captured (the picture size, the audio format).
    public var recordsMovie = true
    /// The session writes a continuous movie of its own (not when it records none, nor when triggers cut it).
    var hasOwnMovie: Bool { recordsMovie && triggers == nil }
    /// A stop before the end leaves no movie: a batch transcode that is interrupted (Ctrl-C, SIGTERM from a
    /// cluster's scheduler) is incomplete, and keeping it under its final name would let a re-run skip it.
    package var discardsStoppedMovie = false
    /// A transcode: `video` and `audio` name the same file, each track is recorded where the file has one
    /// (a missing one is left out, not an error), and the orientation follows the file's rotation. The file
    /// is opened once, so a named pipe or a shell's `<(...)` works.
    var takesTracksFromInput = false
    /// Control values a V4L2 camera is given before its first frame (focus, exposure, torch ...), in order.
    public var cameraControls: [CameraControlSetting] = []
    /// Give the camera back the control values it had once the recording ends (V4L2 devices otherwise keep
    /// what `cameraControls` set until they are unplugged).
    public var restoresCameraControls = false
    /// Further movies from the same capture, each at its own preset (quality tiers at once).
    public var tiers: [MovieTier] = []
    /// Roll over into consecutive files (see Segmentation): every movie (tiers too) is then written as
    /// segments named from its output path (see `Segmentation` and the `{index}`, `{date}`, `{time}` fields).
    public var segmentation: Segmentation? = nil
    /// Live streams of the main movie (`--live DIR`: HLS beside the movie, from its encoders).
    public var live: [LiveStream] = []
    /// Movies only around events (`--trigger`): then there is no continuous movie, and `outputPath` names the
    /// event movies ({index}, {date}, {time}); see TriggeredRecording.
    public var triggers: TriggeredRecording?
    /// The last seconds of the main movie kept in memory, saved on demand (`--replay-buffer`: see
    /// ReplayBuffer); with `recordsMovie` false it gets encoders of its own at the preset.
    public var replayBuffer: ReplayBuffer?
    /// Live streams of the main movie pushed to servers (`--live srt://…`, `--live rtmp://…`).
    public var livePushes: [LivePush] = []
    /// Alarms to watch for while recording (`--alarm`): each start and end is an event, and the result lists them.
    public var alarms: [AlarmRule] = []
    /// Meter the sound of live inputs (AudioLevels: `levels` events, `CaptureSession.audioLevels()`, the
    /// status). On by default; `reel record` turns it off when nothing would show the levels (no status line,
    /// no control socket, no sound alarm). Sound alarms meter whatever this says.
    public var metersLevels = true

    /// Whether the readers meter the sound: asked for, or needed by a sound alarm.
    var needsLevels: Bool { metersLevels || alarms.contains { $0.kind == .silence || $0.kind == .clipping } || triggers?.watchesSound == true }
    /// Further pictures of the first frame, kept aside by PressCapture to decide photo or movie afterwards.
    var hiddenFirstFrameStills: [StillRequest] = []

    public init(outputPath: String, video: DeviceSpec? = DeviceDiscovery.defaultVideo(),
                audio: DeviceSpec? = DeviceDiscovery.defaultAudio(), preset: Preset,
                limits: RecordingLimits = RecordingLimits(), orientation: Orientation = .landscapeRight,
                overwrite: Bool = false, firstFrameStill: StillRequest? = nil,
                fragmentInterval: Double = RecordingConfiguration.defaultFragmentInterval) {
        self.outputPath = outputPath
        self.video = video
        self.audio = audio
        self.preset = preset
        self.limits = limits
        self.orientation = orientation
        self.overwrite = overwrite
        self.firstFrameStill = firstFrameStill
        self.fragmentInterval = fragmentInterval
    }

    /// Where the movie is written until it is finalized.
    public var writingPath: String {
        fragmentInterval > 0 && writesUnderFinalName ? outputPath : PartialName.path(for: outputPath)
    }
}
