import Foundation

/// Readers nobody here wrote, as oracles beside ffprobe: GStreamer's qtdemux (discoverer for the duration, a
/// full decode to fakesink for the frames), MediaInfo, and Chromium's `<video>` (headless: whether it opens
/// the file, and the duration it reports). `make test` installs them (see the Makefile). More readers (Firefox,
/// MPlayer's own demuxer, an exiftool round trip, libquicktime, xine) are in MoreIndependentReaders.swift,
/// LibraryReaders.swift and FirefoxReader.swift.
public enum IndependentReaders {
    public struct Reading: Sendable, CustomStringConvertible {
        public var videoFrames: Int
        /// Seconds, as the reader reports the movie's (or its longest track's) duration.
        public var duration: Double
        /// Error lines the reader printed.
        public var problems: String
        /// What else the reader saw, for the record (not compared): e.g. the pictures MPlayer decoded.
        public var notes: String = ""
        /// The sound tracks the reader found; -1 from a reader that does not say (Chromium's and Firefox's
        /// `audioTracks` are behind flags, xine plays one).
        public var audioTracks: Int = -1
        public var description: String {
            "\(videoFrames) frames, \(duration) s\(audioTracks >= 0 ? ", \(audioTracks) sound tracks" : "")\(problems.isEmpty ? "" : ", problems: \(problems)")\(notes.isEmpty ? "" : " (\(notes))")"
        }
    }

    /// GStreamer: qtdemux decodes every video frame (avdec_h264, avdec_h265) to a counting fakesink;
    /// discoverer gives the duration. Errors on the way are problems.
    public static func gstreamer(_ path: String) throws -> Reading {
        let video = try FFprobe.stream(path, type: "video")
        let hasVideo = video != nil
        let decoder = video?["codec_name"] as? String == "hevc" ? "avdec_h265" : "avdec_h264"
        let pipeline = hasVideo
            ? "filesrc location=\(quoted(path)) ! qtdemux name=d d.video_0 ! queue ! \(decoder) ! fakesink silent=false"
            : "filesrc location=\(quoted(path)) ! qtdemux name=d d.audio_0 ! queue ! avdec_aac ! fakesink"
        let decode = try Processes.shell("gst-launch-1.0 -v \(pipeline) 2>&1", timeout: 60)
        let lines = decode.standardOutput.split(separator: "\n")
        let frames = hasVideo ? lines.filter { $0.contains("fakesink0: last-message = chain") }.count : 0
        var problems = lines.filter { $0.contains("ERROR") || $0.contains("WARNING") }.joined(separator: " | ")
        if decode.status != 0 && problems.isEmpty { problems = "gst-launch exit \(decode.status)" }
        let discover = try Processes.shell("gst-discoverer-1.0 \(quoted(path)) 2>&1", timeout: 60)
        let durationLine = discover.standardOutput.split(separator: "\n").first { $0.contains("Duration:") }
        return Reading(videoFrames: frames, duration: durationLine.map { clock(String($0)) } ?? -1, problems: problems,
                       audioTracks: discover.standardOutput.split(separator: "\n").filter { $0.contains("audio #") }.count)
    }

    /// MediaInfo: the video track's frame count, and the general duration.
    public static func mediainfo(_ path: String) throws -> Reading {
        let frames = try Processes.run("/usr/bin/mediainfo", ["--Inform=Video;%FrameCount%", path])
        let duration = try Processes.run("/usr/bin/mediainfo", ["--Inform=General;%Duration%", path])
        let audio = try Processes.run("/usr/bin/mediainfo", ["--Inform=General;%AudioCount%", path])
        let text = { (result: ProcessResult) in result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) }
        let status = frames.status == 0 && duration.status == 0
        return Reading(videoFrames: Int(text(frames)) ?? 0, duration: (Double(text(duration)) ?? -1000) / 1000,
                       problems: status ? "" : "mediainfo failed: \(frames.standardError) \(duration.standardError)",
                       audioTracks: Int(text(audio)) ?? 0)
    }

    /// ffprobe's view (the reference the others are compared with): decoded video frames and the format duration.
    public static func ffprobe(_ path: String) throws -> Reading {
        let result = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                             "-show_entries", "stream=nb_read_frames:format=duration",
                                                             "-of", "default=nw=1", path])
        let values = Dictionary(result.standardOutput.split(separator: "\n").compactMap { line -> (String, String)? in
            let pair = line.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        let audio = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=index",
                                                            "-of", "csv=p=0", path])
        return Reading(videoFrames: Int(values["nb_read_frames"] ?? "") ?? 0, duration: Double(values["duration"] ?? "") ?? -1,
                       problems: result.status == 0 ? result.standardError : "ffprobe exit \(result.status): \(result.standardError)",
                       audioTracks: audio.standardOutput.split(separator: "\n").count)
    }

    static func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// "0:00:05.000000000" → 5.0
    static func clock(_ line: String) -> Double {
        guard let text = line.split(separator: " ").last else { return -1 }
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return -1 }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}

extension IndependentReaders {
    /// Chromium, headless, loading the file into a `<video>` element: the duration from its metadata, or the
    /// media error (DEMUXER_ERROR_COULD_NOT_OPEN for a file its FFmpeg-based demuxer refuses) as a problem.
    /// It does not count frames (-1).
    public static func chromium(_ path: String) throws -> Reading {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let page = "\(folder)/reel-video-probe.html"
        let script = [
            "<html><body><pre id=\"out\">pending</pre><script>",
            "const v = document.createElement('video'); const out = document.getElementById('out');",
            "v.muted = true; v.preload = 'metadata';",
            "v.onerror = () => { out.textContent = 'error ' + (v.error ? v.error.code + ' ' + v.error.message : ''); };",
            "v.onloadedmetadata = () => { out.textContent = 'duration ' + v.duration; };",
            "v.src = new URLSearchParams(location.search).get('src'); document.body.appendChild(v);",
            "</script></body></html>",
        ].joined(separator: "\n")
        try script.write(toFile: page, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: page)
            try? FileManager.default.removeItem(atPath: "\(folder)/chromium-profile")
        }
        let result = try Processes.run("/usr/bin/chromium", [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
            "--user-data-dir=\(folder)/chromium-profile", "--virtual-time-budget=5000", "--dump-dom",
            "file://\(page)?src=file://\(path)"], timeout: 60)
        let text = result.standardOutput.components(separatedBy: "<pre id=\"out\">").dropFirst().first?
            .components(separatedBy: "<").first ?? "no answer (exit \(result.status))"
        guard text.hasPrefix("duration "), let duration = Double(text.dropFirst("duration ".count)) else {
            return Reading(videoFrames: -1, duration: -1, problems: "Chromium: \(text)")
        }
        return Reading(videoFrames: -1, duration: duration, problems: "")
    }

    /// What GStreamer, MediaInfo and Chromium disagree with, for a movie of `frames` pictures lasting `duration`
    /// seconds (within 0.05 s): one line per reader that counts other pictures, another duration, or reports
    /// problems (Chromium is not asked for pictures); empty when all three read it so.
    public static func disagreements(_ path: String, frames: Int, duration: Double) throws -> [String] {
        var found: [String] = []
        let gstreamer = try gstreamer(path), mediainfo = try mediainfo(path), chromium = try chromium(path)
        for (name, reading, counts) in [("GStreamer", gstreamer, true), ("MediaInfo", mediainfo, true), ("Chromium", chromium, false)]
        where (counts && reading.videoFrames != frames) || abs(reading.duration - duration) >= 0.05 || !reading.problems.isEmpty {
            found.append("\(name): \(reading)")
        }
        return found
    }
}
