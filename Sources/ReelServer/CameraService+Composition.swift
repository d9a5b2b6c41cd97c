import Reel

/// Several video inputs composed and several sound inputs mixed in the camera (`reel serve --video A --video B`):
/// the layout the page's picker and `POST /api/layout` change while it runs.
extension CameraService {
    /// The layouts the page offers for `inputs` composed video inputs (none for one).
    static func layoutChoices(inputs: Int) -> [String] {
        inputs < 2 ? [] : VideoLayout.builtInNames + (1...inputs).map { "only:\($0)" }
    }

    /// The session's inputs from the camera's: the composed and mixed ones, and the layout.
    static func compose(_ inputs: Inputs, into capture: inout CaptureInputs) throws {
        capture.additionalVideo = try (inputs.moreVideo ?? []).map(DeviceSpec.init(parsing:))
        capture.additionalAudio = try (inputs.moreAudio ?? []).map(DeviceSpec.init(parsing:))
        capture.audioTracks = inputs.audioTracks.flatMap(AudioTrackMode.init(rawValue:)) ?? .mix
        if capture.video != nil, let name = inputs.layout {
            capture.layout = try VideoLayout.builtIn(name, inputs: 1 + capture.additionalVideo.count)
        }
    }

    /// The composed picture's layout from the next frame (a built-in name: the page cannot name files);
    /// kept for the camera's next start.
    func setLayout(_ name: String) throws {
        let session = lock.withLock { self.session }
        guard let session, session.currentState == .recording else {
            throw ReelError.invalidInput("the camera is not running: start it first")
        }
        let count = session.videoInputs.count
        guard count > 1 else { throw ReelError.invalidInput("the camera has one video input: start reel serve with several --video inputs to compose them") }
        try session.setLayout(try VideoLayout.builtIn(name, inputs: count))
        lock.withLock { inputs.layout = name }
        publishState()
    }
}
