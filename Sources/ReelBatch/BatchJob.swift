import Reel
import FoundationEssentials
import Glibc

/// One job of a batch, validated and with its templates expanded.
public struct BatchJob: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case record, transcode, grab, trim, join
    }

    public var index: Int
    public var name: String
    public var kind: Kind
    public var output: String
    /// record: the sources (nil = the default device, "none" becomes nil track via `hasVideo`/`hasAudio`).
    public var video: DeviceSpec?
    /// record: the video inputs after the first (`video` as a list), composed by `layout`.
    public var additionalVideo: [DeviceSpec] = []
    public var layout: VideoLayout?
    /// record and transcode: drawn on every picture, and the filters each picture goes through.
    public var overlays: [Overlay] = []
    public var pictureFilters: [PictureFilterKind] = []
    public var audio: DeviceSpec?
    /// record: the sound inputs after the first (`audio` as a list), mixed or as tracks of their own.
    public var additionalAudio: [DeviceSpec] = []
    public var audioTracks: AudioTrackMode = .mix
    /// transcode, grab and trim: the file to read.
    public var input: String?
    public var preset: Preset?
    public var limits: RecordingLimits
    public var still: StillRequest?
    public var orientation: Orientation
    /// grab: where in the movie, in seconds.
    public var at: Double
    public var quality: Int
    /// record and transcode: seconds between movie fragments (0 = off).
    public var fragmentInterval: Double = RecordingConfiguration.defaultFragmentInterval
    /// record: seconds a live device may deliver nothing before it counts as lost.
    public var deviceTimeout: Double = RecordingConfiguration.defaultDeviceTimeout
    /// record: a V4L2 camera's control values, as `--camera-control` takes them, in order.
    public var cameraControls: [CameraControlSetting] = []
    /// record and transcode: further movies from the same capture at other presets.
    public var tiers: [MovieTier] = []
    /// Live streams of the movie (`live`: HLS folders).
    public var live: [LiveStream] = []
    public var livePushes: [LivePush] = []
    /// record: alarms to watch for (`alarms`); with `alarmExit`, a recording that ends with one on fails the job
    /// (its movie is kept).
    public var alarms: [AlarmRule] = []
    public var alarmExit = false
    /// record and transcode: consecutive files instead of one (`output` is then their name pattern).
    public var segmentation: Segmentation? = nil
    /// record: seconds kept in a replay buffer (`replayBuffer`, saved over the control socket) and its bound.
    public var replayBuffer: Double? = nil
    public var replayBufferSize: Int? = nil
    /// record: a control socket to listen on while the job records (`reel ctl`).
    public var control: String? = nil
    /// record: when the recording starts (`startAt`); nil starts it when a parallel slot is free.
    public var startAt: Date? = nil
    /// trim: the span (`from`, `to` or `from` + `duration`, seconds) and the mode (`mode`, see TrimMode).
    public var trimSpan: ClosedRange<Double>? = nil
    public var trimMode: TrimMode = .smart
    /// join: the movies joined, in order (`inputs`).
    public var joinInputs: [String] = []
}

extension BatchJob {
    /// The files this job writes (its movie or segments, tiers, still; all under hidden names until
    /// finalized) and the files it reads.
    var outputPlan: OutputPlan {
        var plan = OutputPlan()
        switch kind {
        case .grab:
            plan.addStill(output, role: "output", replaces: false)
        case .trim, .join:
            plan.addMovie(output, segmentation: nil, writesHidden: true, role: "output")
        case .record, .transcode:
            plan.addMovie(output, segmentation: segmentation, writesHidden: true, role: "output")
            for tier in tiers {
                plan.addMovie(tier.outputPath, segmentation: segmentation, writesHidden: true, role: "tier \(tier.preset.name)")
            }
            // A re-run may replace the still of a job it runs again (the movie was not finished).
            if let still { plan.addStill(still.path, role: "still", replaces: true) }
        }
        plan.inputs = ([input].compactMap { $0 } + joinInputs + [video, audio].compactMap { $0 }.filter { $0.kind == .file }.map(\.target))
        return plan
    }
}
