import FoundationEssentials
import SystemSupport

/// Live streams of a running session without a movie (`reel serve`'s camera at /live/): encoders of their
/// own at `preset` (a movie's loop with no file: the same cadence, keyframes and sound placement) feeding HLS
/// folders (`LiveStream`, Low-Latency HLS with parts) and pushes (`LivePush`). Add it to a running session
/// with `CaptureSession.addOutput(_:)`: it starts at the next picture and goes on until `stop()` or the
/// session's end. (Streams of a movie that is recorded anyway share its encoders instead: `--live`,
/// `RecordingConfiguration.live`.)
public final class LiveStreamOutput: Sendable {
    public let preset: Preset
    public let streams: [LiveStream]
    public let pushes: [LivePush]
    private let recorder = Locked<MovieRecorder?>(nil)

    public init(preset: Preset, streams: [LiveStream] = [], pushes: [LivePush] = []) {
        self.preset = preset
        self.streams = streams
        self.pushes = pushes
    }

    func attach(_ running: MovieRecorder) { recorder.withLock { $0 = running } }

    /// Ends the streams (their playlists end, pushes close); the session goes on.
    public func stop() { recorder.withLock { $0 }?.requestStop() }

    /// What each stream made, once they have ended; nil before.
    public var results: [LiveResult]? { recorder.withLock { $0 }?.result.map { $0.live ?? [] } }

    /// Blocks until the streams have ended (not for use on Swift's cooperative pool); empty when the output
    /// never ran.
    @available(*, noasync, message: "use results after the session's end from async code")
    public func waitUntilFinished() -> [LiveResult] {
        recorder.withLock { $0 }?.waitForMovieResult().live ?? []
    }
}
