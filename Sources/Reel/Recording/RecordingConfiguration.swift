/// Everything a recording needs, as plain values.
public struct RecordingConfiguration: Sendable {
    /// Where the movie goes (a .mov path). Its folder must exist.
    public var outputPath: String
    /// The picture source; nil records audio only.
    public var video: DeviceSpec?
    /// The sound source; nil records video only.
    public var audio: DeviceSpec?
    public var preset: Preset
    public var limits: RecordingLimits
    public var orientation: Orientation
    /// Replace an existing file at `outputPath` instead of refusing.
    public var overwrite: Bool
    /// A picture of the first captured frame (after scaling to the preset size), encoded from the raw frame,
    /// not decoded back out of the movie.
    public var firstFrameStill: StillRequest?
    /// Further pictures of the first frame, kept aside by PressCapture to decide photo or movie afterwards.
    var hiddenFirstFrameStills: [StillRequest] = []

    public init(outputPath: String, video: DeviceSpec? = DeviceDiscovery.defaultVideo(),
                audio: DeviceSpec? = DeviceDiscovery.defaultAudio(), preset: Preset,
                limits: RecordingLimits = RecordingLimits(), orientation: Orientation = .landscapeRight,
                overwrite: Bool = false, firstFrameStill: StillRequest? = nil) {
        self.outputPath = outputPath
        self.video = video
        self.audio = audio
        self.preset = preset
        self.limits = limits
        self.orientation = orientation
        self.overwrite = overwrite
        self.firstFrameStill = firstFrameStill
    }
}
