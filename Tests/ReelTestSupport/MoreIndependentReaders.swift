import Foundation

/// Two more readers nobody here wrote, both with their own QuickTime code rather than FFmpeg's demuxer:
/// MPlayer's native `mov` demuxer, and exiftool's writer (a round trip: tag the movie, then it must still
/// decode to the same frames). Issue 24. libquicktime and xine are in LibraryReaders.swift, Firefox in
/// FirefoxReader.swift.
extension IndependentReaders {
    /// MPlayer with its own QuickTime demuxer (`-demuxer mov`, libmpdemux/demux_mov.c, not libavformat),
    /// decoding the video (ffh264) to `-vo md5sum` (one line per picture shown) and the audio to a PCM sink
    /// as fast as it goes (`-ao pcm:fast`), `-benchmark` so nothing is paced or dropped.
    ///
    /// - videoFrames: the samples the demuxer found in the video track's sample table ("MOV track #N: C
    ///   chunks, S samples"), as ffprobe counts frames.
    /// - duration: `-identify`'s ID_LENGTH (two decimals).
    /// - problems: the demuxer's refusals ("MOV: missing data (mdat) chunk!"), decoding errors, no video
    ///   track or no length found, and fewer pictures shown than the demuxer meant to show.
    ///
    /// What MPlayer shows is not every sample: it applies an edit list by decode order, ignoring `ctts`
    /// ("unknown chunk: ctts"), so a movie with B-frames whose edit list starts at the first picture's
    /// composition offset (Reel's and FFmpeg's own muxer alike, 2 frames here) loses that many pictures at the
    /// start ("EL#0: ... 1st_sample=2 frames=58"): 58 of 60 shown for FFmpeg's own B-frame movie too. So the
    /// pictures shown are compared with the frames of its edit list (`notes` has both), not with ffprobe.
    /// HEVC is demuxed but not decoded: demux_mov does not know `hvcC` ("Found unknown movie atom hvcC"), so
    /// the decoder gets no parameter sets and fails on every picture, FFmpeg's own HEVC movies included;
    /// for HEVC only the demuxer's reading is taken (`-novideo`).
    public static func mplayer(_ path: String) throws -> Reading {
        let folder = try Scratch.folder("reel-mplayer")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sums = "\(folder)/frames.md5"
        let hevc = try FFprobe.stream(path, type: "video")?["codec_name"] as? String == "hevc"
        let output = hevc ? ["-novideo"] : ["-vo", "md5sum:outfile=\(sums)"]
        let result = try Processes.run("/usr/bin/mplayer", ["-v", "-noconfig", "all", "-nolirc", "-nomouseinput", "-demuxer", "mov",
                                                            "-identify", "-benchmark", "-ao", "pcm:fast:file=/dev/null"] + output + [path],
                                       currentDirectory: folder, environment: ["HOME": folder], timeout: 60)
        let lines = (result.standardOutput + "\n" + result.standardError).split(separator: "\n").map(String.init)
        // Each track's sample count, then its edit list's entries, then which kind of stream it was.
        var trackSamples = 0, trackEditFrames: Int?
        var videoSamples: Int?, videoEditFrames: Int?
        var length: Double?
        for line in lines {
            if line.hasPrefix("MOV track #"), let samples = Int(line.split(separator: " ").dropLast().last ?? "") {
                (trackSamples, trackEditFrames) = (samples, nil)
            } else if line.hasPrefix("EL#"), let frames = line.components(separatedBy: "frames=").last?.split(separator: " ").first.flatMap({ Int($0) }) {
                trackEditFrames = (trackEditFrames ?? 0) + frames
            } else if line.contains("Video stream found") {
                (videoSamples, videoEditFrames) = (trackSamples, trackEditFrames)
            } else if line.hasPrefix("ID_LENGTH=") {
                length = Double(line.dropFirst("ID_LENGTH=".count))
            }
        }
        let hasVideo = try FFprobe.stream(path, type: "video") != nil
        var problems = lines.filter { line in
            !line.hasPrefix("Configuration:") && !line.hasPrefix("CommandLine:")
                && ["rror", "missing", "broken", "MOV: Unknown", "corrupt", "Cannot"].contains { line.contains($0) }
        }
        if result.status != 0 { problems.append("mplayer exit \(result.status)") }
        if length == nil { problems.append("no ID_LENGTH") }
        if hasVideo && videoSamples == nil { problems.append("no video stream found") }
        let shown = ((try? String(contentsOfFile: sums, encoding: .utf8)) ?? "").split(separator: "\n").count
        var notes = ""
        if let videoSamples {
            let meant = videoEditFrames ?? videoSamples
            if hevc {
                notes = "HEVC not decoded (demux_mov ignores hvcC); edit list plays \(meant) of \(videoSamples) samples"
            } else {
                notes = "\(shown) pictures shown, edit list plays \(meant) of \(videoSamples) samples"
                if abs(shown - meant) > 1 { problems.append("\(shown) pictures shown of the \(meant) its edit list plays") }
            }
        }
        return Reading(videoFrames: videoSamples ?? 0, duration: length ?? -1, problems: problems.joined(separator: " | "), notes: notes,
                       audioTracks: lines.filter { $0.hasPrefix("ID_AUDIO_ID=") }.count)
    }

    /// exiftool's writer on a copy: `exiftool -overwrite_original -UserData:Title=Reel -ItemList:Title=Reel
    /// -Keys:Title=Reel` (moov/udta/©nam, moov/udta/meta/ilst and moov/meta/keys: a rewritten moov, which
    /// exiftool moves in front of the media data, rewriting every chunk offset). It must exit 0 and print no
    /// error or warning; the tagged copy must read back all three titles, and decode to the same frames as
    /// the original, packet for packet (`ffmpeg -map 0 -f framemd5`: timestamps, sizes and picture and sound
    /// checksums of every stream).
    ///
    /// - videoFrames: the tagged copy's decoded video frames (its framemd5 lines of the video stream).
    /// - duration: exiftool's QuickTime:Duration (the movie header's) of the tagged copy.
    /// - problems: exiftool's errors and warnings ("Media data referenced but not found" for a movie with
    ///   no top-level mdat), titles not read back, a frame that differs.
    public static func exiftoolRoundTrip(_ path: String) throws -> Reading {
        let folder = try Scratch.folder("reel-exiftool")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = "\(folder)/tagged.mov"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let write = try Processes.run("/usr/bin/exiftool", ["-overwrite_original", "-UserData:Title=Reel", "-ItemList:Title=Reel",
                                                            "-Keys:Title=Reel", copy], timeout: 60)
        var problems: [String] = []
        let complaints = (write.standardOutput + "\n" + write.standardError).split(separator: "\n")
            .filter { $0.contains("Error") || $0.contains("Warning") || $0.contains("weren't updated") }
        problems += complaints.map { $0.replacingOccurrences(of: copy, with: "copy") }
        if write.status != 0 { problems.append("exiftool exit \(write.status)") }
        let read = try Processes.run("/usr/bin/exiftool", ["-j", "-a", "-G1", "-n", "-Title", "-QuickTime:Duration", "-HandlerType", copy],
                                     timeout: 60)
        let tags = (try? JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [[String: Any]])?.first ?? [:]
        let missing = ["UserData:Title", "ItemList:Title", "Keys:Title"].filter { tags[$0] as? String != "Reel" }
        if !missing.isEmpty { problems.append("titles not read back: \(missing.joined(separator: ", "))") }
        let duration = (tags["QuickTime:Duration"] as? NSNumber)?.doubleValue ?? -1
        guard write.status == 0 else { return Reading(videoFrames: 0, duration: duration, problems: problems.joined(separator: " | ")) }
        let (before, after) = (try frameChecksums(path), try frameChecksums(copy))
        if before != after {
            let first = zip(before, after).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(before.count, after.count)
            problems.append("the tagged copy decodes differently: \(after.count) frames against \(before.count), first difference at \(first)")
        }
        // The tagged copy's video frames, from its checksums: lines "stream, dts, pts, duration, size, hash".
        let video = (try FFprobe.stream(copy, type: "video")?["index"] as? Int).map(String.init)
        let frames = after.filter { line in video.map { line.split(separator: ",").first.map(String.init) == $0 } ?? false }.count
        // Each track's handler type ("soun" for sound), under its track's group.
        let soundTracks = tags.filter { $0.key.hasSuffix(":HandlerType") && $0.value as? String == "soun" }.count
        return Reading(videoFrames: frames, duration: duration, problems: problems.joined(separator: " | "),
                       notes: "\(after.count) frames decode alike", audioTracks: soundTracks)
    }

    /// `ffmpeg -f framemd5` of every stream: stream, dts, pts, duration, size and checksum of each decoded
    /// frame, without the header comments (they name the file). An error makes a line of its own, so the
    /// lists differ.
    static func frameChecksums(_ path: String) throws -> [String] {
        let result = try Processes.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0", "-f", "framemd5", "-"],
                                       timeout: 60)
        guard result.status == 0 else { return ["ffmpeg exit \(result.status): \(result.standardError)"] }
        return result.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
}
