import FoundationEssentials

/// Carries out control commands on a running capture session (for the control socket and the HTTP
/// service): one place that turns a `ControlCommand` into the session's API calls and a JSON reply.
public final class SessionController: Sendable {
    public let session: CaptureSession
    private let photos: PhotoOutput
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
        case .photo, .switchVideo, .switchAudio, .cameraControl: return true
        case .status, .stop, .pause, .resume, .subscribe: return false
        }
    }

    /// Carries out a command and returns its reply's `data` as JSON (nil for none). Throws `ReelError` for
    /// what the session refused.
    @available(*, noasync, message: "switching and photos wait for the device; call from a thread of your own")
    public func execute(_ command: ControlCommand) throws -> String? {
        switch command {
        case .status, .subscribe:
            return ControlMessages.json(session.status)
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
            try requireRecording()
            let absolute = path.hasPrefix("/") ? path : "\(folder)/\(path)"
            let written = try photos.captureAndWait(to: StillRequest(path: absolute))
            return ControlMessages.json(["path": written])
        case .switchVideo(let spec):
            try session.switchVideo(to: spec)
            return ControlMessages.json(session.status)
        case .switchAudio(let spec):
            try session.switchAudio(to: spec)
            return ControlMessages.json(session.status)
        case .cameraControl(let settings):
            try session.setCameraControls(settings)
            return nil
        }
    }

    private func requireRecording() throws {
        guard session.currentState == .recording else {
            throw ReelError.invalidInput("the session is not recording")
        }
    }
}
