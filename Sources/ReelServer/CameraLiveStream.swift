import FoundationEssentials
import Glibc
@_spi(ReelTools) import Reel
import SystemSupport

/// `reel serve --live` / `--live-push URL`: the camera as Low-Latency HLS at /live/index.m3u8 and pushed to
/// servers, from encoders of its own (`LiveStreamOutput`: the session records no movie; takes come and go
/// beside it). The HLS is written to a private folder of the server's (made at start, removed at stop) that
/// a LiveOrigin serves with blocking reloads. It uses the camera's preset with the encoder holding no
/// picture back (latency low: no B-frames, no lookahead), 2 s segments of 0.5 s parts.
final class CameraLiveStream: Sendable {
    let folder: String
    /// Whether the HLS is written (`--live`), and the servers pushed to.
    let writesHLS: Bool
    let pushes: [LivePush]

    /// Makes the private folder (under TMPDIR, else /tmp). Throws `ReelError.runtime` when it cannot.
    init(writesHLS: Bool, pushes: [LivePush]) throws {
        self.writesHLS = writesHLS
        self.pushes = pushes
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/reel-serve-live-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!).map { String(cString: $0) } }
        guard let made else {
            throw ReelError.runtime("cannot make a folder for the live stream in \(base): \(String(cString: strerror(errno))); set TMPDIR to a writable folder")
        }
        folder = made
    }

    var stream: LiveStream {
        LiveStream(folder: folder, segmentDuration: LiveStream.defaultLowLatencySegmentDuration, partDuration: LiveStream.defaultPartDuration)
    }

    private let playable = Locked(false)

    /// Whether a player can start on the stream now (its LiveOrigin says so as the playlist grows).
    var isPlayable: Bool { playable.withLock { $0 } }
    func setPlayable(_ value: Bool) { playable.withLock { $0 = value } }

    /// The camera's preset for watching as it happens: the encoder holds no picture back.
    static func livePreset(_ preset: Preset) -> Preset {
        var live = preset
        live.video.latency = .low
        live.video.bFrames = nil
        return live
    }

    /// Streams the running session from its next picture (an earlier session's files are removed first:
    /// players reload from the new playlist).
    func start(on session: CaptureSession, preset: Preset) throws -> LiveStreamOutput {
        try LiveFolder.prepare(stream)
        let output = LiveStreamOutput(preset: CameraLiveStream.livePreset(preset), streams: writesHLS ? [stream] : [], pushes: pushes)
        try session.addOutput(output)
        return output
    }

    /// Removes the folder and the stream's files (the server is stopping).
    func remove() {
        try? LiveFolder.prepare(stream)
        rmdir(folder)
    }
}
