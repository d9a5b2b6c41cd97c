import Foundation

/// Players of HLS as a viewer has them, over HTTP on 127.0.0.1 (Tests/IndependentReaders/hls_probe.py serves
/// the stream's folder while it reads): headless Chromium's native HLS in a `<video>` played to `ended`, and
/// GStreamer's hlsdemux2 decoding every picture. Issue 26.
extension IndependentReaders {
    public struct HLSReading: CustomStringConvertible {
        /// Pictures decoded (GStreamer) or that reached the video sink (Chromium's totalVideoFrames).
        public var videoFrames: Int
        /// Chromium: the element's duration at `ended`; GStreamer: -1.
        public var duration: Double
        /// GStreamer: the first picture's presentation time (the stream starts 10 s in).
        public var firstPictureTime: Double?
        /// A media error, no `ended`, error lines: empty when the playback was clean.
        public var problems: String
        public var description: String {
            "\(videoFrames) frames, \(duration) s\(problems.isEmpty ? "" : ", problems: \(problems)")"
        }
    }

    static let hlsProbe = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../IndependentReaders/hls_probe.py").standardizedFileURL.path

    public static func chromiumHLS(_ playlist: String, timeout: Double = 60) throws -> HLSReading {
        let report = try hlsReport("chromium", playlist, timeout: timeout)
        let ended = report["end"] as? String == "ended"
        return HLSReading(videoFrames: (report["totalVideoFrames"] as? NSNumber)?.intValue ?? -1,
                          duration: (report["duration"] as? NSNumber)?.doubleValue ?? -1,
                          problems: ended ? "" : "Chromium: \(report["end"] ?? "?") \(report["error"] ?? "")")
    }

    public static func gstreamerHLS(_ playlist: String, timeout: Double = 60) throws -> HLSReading {
        let report = try hlsReport("gstreamer", playlist, timeout: timeout)
        return HLSReading(videoFrames: (report["videoFrames"] as? NSNumber)?.intValue ?? -1, duration: -1,
                          firstPictureTime: (report["firstPictureTime"] as? NSNumber)?.doubleValue,
                          problems: report["problems"] as? String ?? "no report")
    }

    private static func hlsReport(_ reader: String, _ playlist: String, timeout: Double) throws -> [String: Any] {
        let result = try Processes.run("/usr/bin/python3", [hlsProbe, reader, playlist, "--timeout", String(timeout)],
                                       timeout: timeout + 60)
        let line = result.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            ?? ["end": "none", "error": "no report (exit \(result.status)): \(result.standardError.suffix(300))"]
    }
}
