/// What a session captures from, and how, without saying what it records: AVCaptureSession's inputs and
/// sessionPreset. A session started from inputs alone (`CaptureSession.start(_:events:)`) records nothing
/// until outputs are added, before or after the start: movies (`MovieOutput`, each with its own preset,
/// limits, segments and pause), photos (`PhotoOutput`) and live views (`PreviewOutput`). It runs until
/// `stop()` or a lost device.
public struct CaptureInputs: Sendable {
    public var video: DeviceSpec?
    /// More picture sources, composed with `video` (the first input) into one picture by `layout`
    /// (AVCaptureMultiCamSession's several cameras, OBS's sources in a scene).
    public var additionalVideo: [DeviceSpec] = []
    /// Where each video input goes when there are several (default: `VideoLayout.defaultName`); changed while
    /// running with `CaptureSession.setLayout`.
    public var layout: VideoLayout? = nil
    /// Text and pictures drawn on the captured picture (every output shows them).
    public var overlays: [Overlay] = []
    /// Filters each video input goes through as captured, after the preset's own.
    public var pictureFilters: [PictureFilterKind] = []
    public var audio: DeviceSpec?
    /// More sound sources, mixed with `audio` into one track (each at its spec's `gain=-6dB`), or with
    /// `audioTracks` `.separate` each a track of its own in the movies.
    public var additionalAudio: [DeviceSpec] = []
    public var audioTracks: AudioTrackMode = .mix
    /// What is captured: the picture size and rate the photos and live views are taken at, and the audio
    /// format (a movie at another preset scales or resamples its own copy).
    public var preset: Preset
    public var orientation: Orientation
    /// Seconds a live device may deliver nothing before it counts as lost (the session then ends).
    public var deviceTimeout: Double = RecordingConfiguration.defaultDeviceTimeout
    /// Settings a V4L2 camera is given before its first frame (`.focus(.locked)`, `.torch(.on)` ...).
    public var cameraControls: [CameraControlSetting] = []
    /// Give the camera back the control values it had once the session ends.
    public var restoresCameraControls = false
    /// Seconds between the fragments of the movies (0: none), each a playable point after a crash.
    public var fragmentInterval: Double = RecordingConfiguration.defaultFragmentInterval
    /// Alarms to watch for while the session runs (see AlarmRule): events as they start and end.
    public var alarms: [AlarmRule] = []
    /// The last seconds kept in memory, saved on demand (`CaptureSession.saveReplay`): one encoder feeds it and
    /// the triggered movies.
    public var replayBuffer: ReplayBuffer?
    /// Movies only around events, named by `triggeredMovies` ({index}, {date}, {time}): see TriggeredRecording.
    public var triggers: TriggeredRecording?
    public var triggeredMovies = ""

    public init(video: DeviceSpec? = DeviceDiscovery.defaultVideo(), audio: DeviceSpec? = DeviceDiscovery.defaultAudio(),
                preset: Preset, orientation: Orientation = .landscapeRight) {
        self.video = video
        self.audio = audio
        self.preset = preset
        self.orientation = orientation
    }

    /// The same session as a configuration that records no movie of its own (what the engine runs).
    var configuration: RecordingConfiguration {
        var configuration = RecordingConfiguration(outputPath: "", video: video, audio: audio, preset: preset,
                                                   orientation: orientation, fragmentInterval: fragmentInterval)
        configuration.recordsMovie = false
        configuration.additionalVideo = additionalVideo
        configuration.layout = layout
        configuration.overlays = overlays
        configuration.additionalAudio = additionalAudio
        configuration.audioTracks = audioTracks
        configuration.pictureFilters = pictureFilters
        configuration.deviceTimeout = deviceTimeout
        configuration.cameraControls = cameraControls
        configuration.restoresCameraControls = restoresCameraControls
        configuration.alarms = alarms
        configuration.replayBuffer = replayBuffer
        configuration.triggers = triggers
        if triggers != nil { configuration.outputPath = triggeredMovies }
        return configuration
    }
}
