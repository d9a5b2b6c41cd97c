/// One way a camera can deliver pictures: a pixel format at a size and rate.
public struct VideoMode: Sendable, Equatable, Encodable {
    /// V4L2 fourcc ("YUYV", "MJPG").
    public var pixelFormat: String
    public var isCompressed: Bool
    public var width: Int
    public var height: Int
    /// Frames per second; 0 when the device does not say.
    public var fps: Double

    public init(pixelFormat: String, isCompressed: Bool, width: Int, height: Int, fps: Double) {
        self.pixelFormat = pixelFormat
        self.isCompressed = isCompressed
        self.width = width
        self.height = height
        self.fps = fps
    }

    var area: Int { width * height }

    /// FFmpeg's v4l2 `input_format` name for this fourcc.
    var ffmpegInputFormat: String? { VideoMode.ffmpegInputFormats[pixelFormat] }

    /// V4L2 fourccs Reel can capture, by FFmpeg's v4l2 `input_format` names (the one table: mode selection,
    /// libavdevice's options and Reel's own V4L2 reader all read it).
    static let ffmpegInputFormats: [String: String] = [
        "MJPG": "mjpeg", "H264": "h264", "YUYV": "yuyv422", "UYVY": "uyvy422", "NV12": "nv12", "YU12": "yuv420p",
        "RGB3": "rgb24", "BGR3": "bgr24", "GREY": "gray",
    ]
}

/// Chooses the camera mode for a preset: the preset's size at a rate that really reaches the preset's fps
/// (so MJPEG 720p30 wins over YUYV 720p at 10 fps), else the closest mode, which the scaler then fits.
public enum VideoModeSelection {
    public static func choose(from modes: [VideoMode], width: Int, height: Int, fps: Double,
                              policy: Preset.SizePolicy) -> VideoMode? {
        let usable = modes.filter { $0.ffmpegInputFormat != nil }
        guard !usable.isEmpty else { return nil }
        let reachesRate = { (mode: VideoMode) in mode.fps == 0 || mode.fps + 0.5 >= fps }
        switch policy {
        case .deviceBest:
            let fitting = usable.filter { $0.width <= width && $0.height <= height }
            let pool = fitting.isEmpty ? usable : fitting
            return pool.max { lhs, rhs in
                (reachesRate(lhs) ? 1 : 0, lhs.area, lhs.isCompressed ? 0 : 1) <
                    (reachesRate(rhs) ? 1 : 0, rhs.area, rhs.isCompressed ? 0 : 1)
            }
        case .exact:
            let targetArea = Double(width * height)
            func cost(_ mode: VideoMode) -> (Int, Double, Int) {
                let ratio = Double(mode.area) / targetArea
                // Upscaling loses detail; downscaling from a bit more is nearly free: weigh them unequally.
                let sizeCost = ratio >= 1 ? log2(ratio) : 2 * log2(1 / ratio)
                let exactSize = mode.width == width && mode.height == height
                return (reachesRate(mode) ? 0 : 1, exactSize ? -1 : sizeCost, mode.isCompressed ? 1 : 0)
            }
            return usable.min { cost($0) < cost($1) }
        }
    }

    private static func log2(_ value: Double) -> Double { Glibc.log2(value) }
}

import FoundationEssentials
import Glibc
