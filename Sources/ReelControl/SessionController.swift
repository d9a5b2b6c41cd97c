import Reel
import FoundationEssentials

/// The one place that turns a command for a running session into the session's API calls: the control
/// socket (`reel record --control`, `reel capture`, batch jobs) runs `execute(_:)`, and `reel serve`'s HTTP
/// API calls the typed operations it is made of, so both refuse, switch and take photos the same way.
public final class SessionController: Sendable {
    public let session: CaptureSession
    /// The session's photo output (added by `init`): photos by command, and the shutter's first pictures.
    public let photos: PhotoOutput
    /// Where relative photo paths are put (the folder the recording was started from).
    private let folder: String

    /// Adds a photo output to `session` (for `photo`); make the controller before starting the session.
    public init(session: CaptureSession, folder: String) {
        self.session = session
        self.folder = folder
        photos = PhotoOutput()
        session.addOutput(photos)
    }

    /// Whether a command can take long (it opens a device, waits for a picture): run it off a server's loop.
    public static func isSlow(_ command: ControlCommand) -> Bool {
        switch command {
        case .photo, .switchVideo, .switchVideoInput, .switchAudio, .cameraControl, .saveReplay: return true
        case .status, .levels, .stop, .pause, .resume, .subscribe, .livePush, .liveFolder, .layout: return false
        }
    }

    /// Carries out a command and returns its reply's `data` as JSON (nil for none). Throws `ReelError` for
    /// what the session refused.
    @available(*, noasync, message: "switching and photos wait for the device; call from a thread of your own")
    public func execute(_ command: ControlCommand) throws -> String? {
        switch command {
        case .status, .subscribe:
            return ControlMessages.json(session.status)
        case .levels:
            return session.currentLevels.flatMap { ControlMessages.json($0) } ?? "null"
        case .stop:
            try requireRecording()
            session.stop()
            return nil
        case .pause:
            try requireRecording()
            session.pauseRecording()
            return ControlMessages.json(session.status)
        case .resume:
            try requireRecording()
            session.resumeRecording()
            return ControlMessages.json(session.status)
        case .photo(let path):
            return ControlMessages.json(["path": try takePhoto(to: path)])
        case .switchVideo(let spec):
            try switchVideo(to: spec)
            return ControlMessages.json(session.status)
        case .switchAudio(let spec):
            try switchAudio(to: spec)
            return ControlMessages.json(session.status)
        case .switchVideoInput(let input, let spec):
            try session.switchVideo(input: input, to: spec)
            return ControlMessages.json(session.status)
        case .layout(let name):
            let path = name.lowercased().hasSuffix(".json") && !name.hasPrefix("/") ? "\(folder)/\(name)" : name
            try session.setLayout(named: path)
            return ControlMessages.json(session.status)
        case .cameraControl(let settings):
            try setCameraControls(settings)
            return nil
        case .livePush(let push):
            try session.addLiveStream(push)
            return ControlMessages.json(["pushing": push.displayURL])
        case .saveReplay(let path, let seconds):
            return ControlMessages.json(try saveReplayAndWait(to: path, seconds: seconds))
        case .liveFolder(let path):
            let folder = path.hasPrefix("/") ? path : "\(self.folder)/\(path)"
            try session.addLiveStream(LiveStream(folder: folder))
            return ControlMessages.json(["streaming": folder + "/" + LiveStream.playlistName])
        }
    }

    /// The next picture to `path` (relative: beside the recording); returns the path written.
    @available(*, noasync, message: "waits for the next picture; call from a thread of your own")
    public func takePhoto(to path: String) throws -> String {
        try requireRecording()
        let absolute = path.hasPrefix("/") ? path : "\(folder)/\(path)"
        return try photos.captureAndWait(to: StillRequest(path: absolute))
    }

    /// The replay buffer's last `seconds` (nil: all it holds) to `path` (relative: beside the recording).
    @available(*, noasync, message: "waits for the encoders and writes the file; call from a thread of your own")
    public func saveReplayAndWait(to path: String, seconds: Double?) throws -> ReplaySave {
        try session.saveReplayAndWait(to: path.hasPrefix("/") ? path : "\(folder)/\(path)", seconds: seconds)
    }

    /// Switches the camera (nil: black pictures); waits for the new device's first frame.
    @available(*, noasync, message: "waits for the device; call from a thread of your own")
    public func switchVideo(to spec: DeviceSpec?) throws {
        try session.switchVideo(to: spec)
    }

    /// Switches the microphone (nil: silence); waits for the new device's first samples.
    @available(*, noasync, message: "waits for the device; call from a thread of your own")
    public func switchAudio(to spec: DeviceSpec?) throws {
        try session.switchAudio(to: spec)
    }

    /// Sets V4L2 controls of the camera being recorded.
    public func setCameraControls(_ settings: [CameraControlSetting]) throws {
        try session.setCameraControls(settings)
    }

    private func requireRecording() throws {
        guard session.currentState == .recording else {
            throw ReelError.invalidInput("the session is not recording")
        }
    }
}
