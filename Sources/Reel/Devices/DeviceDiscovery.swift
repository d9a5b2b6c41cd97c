import CLinuxCapture
import FoundationEssentials
import Glibc

/// A V4L2 camera found on this machine.
public struct CameraDevice: Sendable, Encodable {
    public var path: String
    public var name: String
    public var modes: [VideoMode]
    /// Its controls (focus, exposure, white balance, zoom, torch ...), with their current values.
    public var controls: [CameraControl]
    /// The spec that records from this camera (`v4l2:PATH`).
    public var spec: DeviceSpec { DeviceSpec(kind: .v4l2, target: path) }
}

/// An ALSA capture device from /proc/asound/pcm.
public struct MicrophoneDevice: Sendable, Encodable {
    public var name: String
    public var description: String
    /// The spec that records from this microphone (`alsa:NAME`).
    public var spec: DeviceSpec { DeviceSpec(kind: .alsa, target: name) }
}

/// Finds what can be recorded from: cameras, microphones, and the built-in sources.
public enum DeviceDiscovery {
    public static let builtInVideo = DeviceSpec(kind: .lavfi, target: "testsrc2")
    public static let builtInAudio = DeviceSpec(kind: .lavfi, target: "sine")

    public static func cameras() -> [CameraDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        let paths = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { "/dev/\($0)" }
        return paths.compactMap { path in
            var card = [CChar](repeating: 0, count: 64)
            guard reel_v4l2_query_capture(path, &card, card.count) == 1 else { return nil }
            let name = String(decoding: card.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return CameraDevice(path: path, name: name, modes: modes(of: path), controls: CameraControl.controls(of: path))
        }
    }

    public static func modes(of path: String) -> [VideoMode] {
        var buffer = [reel_v4l2_mode](repeating: reel_v4l2_mode(), count: 512)
        let count = reel_v4l2_list_modes(path, &buffer, Int32(buffer.count))
        guard count > 0 else { return [] }
        return buffer.prefix(Int(min(count, Int32(buffer.count)))).map { mode in
            let fourcc = withUnsafeBytes(of: mode.fourcc) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            let fps = mode.interval_numerator == 0 ? 0 : Double(mode.interval_denominator) / Double(mode.interval_numerator)
            return VideoMode(pixelFormat: fourcc, isCompressed: mode.compressed != 0, width: Int(mode.width),
                             height: Int(mode.height), fps: fps)
        }
    }

    /// Capture-capable ALSA PCMs, from /proc/asound/pcm ("00-00: name : desc : playback 1 : capture 1").
    public static func microphones() -> [MicrophoneDevice] {
        guard let text = try? String(contentsOfFile: "/proc/asound/pcm", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard line.contains("capture") else { return nil }
            let fields = line.split(separator: ":", maxSplits: 2).map(\.trimmingWhitespace)
            guard fields.count >= 2 else { return nil }
            let ids = fields[0].split(separator: "-").compactMap { Int($0) }
            guard ids.count == 2 else { return nil }
            return MicrophoneDevice(name: "hw:\(ids[0]),\(ids[1])", description: fields[1])
        }
    }

    /// The first camera, else the built-in test pattern, so recording works on a machine without one.
    public static func defaultVideo() -> DeviceSpec {
        if let camera = cameras().first { return DeviceSpec(kind: .v4l2, target: camera.path) }
        return builtInVideo
    }

    /// The default ALSA capture device when the machine has one, else the built-in tone.
    public static func defaultAudio() -> DeviceSpec {
        microphones().isEmpty ? builtInAudio : DeviceSpec(kind: .alsa, target: "default")
    }
}
