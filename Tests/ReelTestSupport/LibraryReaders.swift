import Foundation

/// Readers that are libraries rather than programs, each driven by a small C program in
/// Tests/IndependentReaders (built with the C compiler `make test` installs, once, next to the test bundle):
/// libquicktime (Debian ships the library without its qtinfo utility) and xine (whose console front ends
/// need a terminal or a framebuffer; libxine itself plays headless into its "raw" video driver). Issue 24.
extension IndependentReaders {
    /// libquicktime (its own QuickTime parser, quicktime_open): the video track's frame count from its sample
    /// table, every frame read back compressed (its offset and size must lie in the file), the media
    /// duration. Debian's libquicktime2 has no H.264 or HEVC decoder, so nothing is decoded.
    ///
    /// - videoFrames: quicktime_video_length of the first video track (0 without one).
    /// - duration: the video track's media duration (lqt_video_duration / time scale), or for audio only the
    ///   audio track's samples / rate (which include AAC's priming: up to 2048 samples more than ffprobe).
    /// - problems: quicktime_open failing, 0 frames in a video track (libquicktime does not read movie
    ///   fragments: a crash-left fragmented movie has an empty sample table), frames that cannot be read,
    ///   errors and warnings libquicktime logs.
    public static func libquicktime(_ path: String) throws -> Reading {
        let tool = try HelperTools.build("lqt_info", packages: "libquicktime")
        let result = try Processes.run(tool, [path], timeout: 30)
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        func field(_ words: [String], _ name: String) -> String? { words.firstIndex(of: name).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil } }
        var problems = lines.filter { $0.first == "log" || $0.first == "error" }.map { $0.joined(separator: " ") }
        if result.status != 0 { problems.append("lqt_info exit \(result.status) \(result.standardError)") }
        let video = lines.first { $0.first == "video" }, audio = lines.first { $0.first == "audio" }
        var (frames, duration, notes) = (0, -1.0, "")
        if let video {
            frames = Int(field(video, "frames") ?? "") ?? 0
            let read = Int(field(video, "read") ?? "") ?? -1
            let scale = Double(field(video, "timescale") ?? "") ?? 0
            duration = scale > 0 ? (Double(field(video, "duration") ?? "") ?? -scale) / scale : -1
            if frames == 0 { problems.append("0 frames in the video track") }
            if read != frames { problems.append("\(read) of \(frames) frames read") }
            notes = "\(field(video, "compressor") ?? "?") \(field(video, "size") ?? "?")"
        } else if let audio, let samples = Double(field(audio, "samples") ?? ""), let rate = Double(field(audio, "rate") ?? ""), rate > 0 {
            duration = samples / rate
        }
        if let audio { notes += (notes.isEmpty ? "" : ", ") + "audio \(field(audio, "samples") ?? "?") samples" }
        if video == nil && audio == nil { problems.append("no tracks") }
        let audioTracks = lines.first { $0.first == "audio_tracks" }.flatMap { $0.count > 1 ? Int($0[1]) : nil } ?? -1
        return Reading(videoFrames: frames, duration: duration, problems: problems.joined(separator: " | "), notes: notes,
                       audioTracks: audioTracks)
    }

    /// xine (libxine2: its own QuickTime demuxer, "MOV/MPEG-4", and its ffmpeg decoder plugin) playing the
    /// movie to the end at normal speed into the raw video driver, which counts the pictures shown (the
    /// "none" audio driver; no display). xine paces playback by its clock and throws away pictures decoded
    /// too late, or has its decoder skip them: faster than normal speed a loaded machine loses most of them,
    /// so it plays at 1x (a movie's length, 1-3 s here), and once more at half speed if pictures were lost.
    ///
    /// - videoFrames: the frames xine's demuxer found in the video track (demux_qt's log); for a fragmented
    ///   movie, whose frames demux_qt does not count ("added 3 fragments"), the pictures decoded (shown or
    ///   thrown away late).
    /// - duration: the stream length xine reports (milliseconds).
    /// - problems: xine_open or xine_play failing, another demuxer than the QuickTime one, a track it cannot
    ///   decode, messages xine sends the front end, no end of playback within 60 s, and pictures shown (plus
    ///   thrown away late) that are not the demuxer's frames, within one, at both speeds.
    public static func xine(_ path: String) throws -> Reading {
        let tool = try HelperTools.build("xine_frames", packages: "libxine")
        // xine keeps a cache of its plugins: next to the tool, not in the home folder.
        let environment = ["XDG_CACHE_HOME": HelperTools.folder + "/xine-cache", "XDG_CONFIG_HOME": HelperTools.folder + "/xine-config"]
        // xine takes a file modified in the last few seconds for one still being written ("input_file: ... is
        // quite recent, will wait for possible updates"), waits at its end, then loses track of the pictures
        // (17 of 30 shown for a movie just written): it reads a copy dated a minute back.
        let folder = try Scratch.folder("reel-xine")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = "\(folder)/movie.mov"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: copy)
        // One playback: xine's exit, its "xine_frames" values, the video track's frames by demux_qt (nil for a
        // fragmented movie, which it does not count), whether there is one, the pictures shown and thrown away.
        struct Playback { var result: ProcessResult; var values: [String: String]; var demuxed: Int?; var hasTrack: Bool; var shown: Int; var late: Int }
        func play(speed: Int) throws -> Playback {
            let result = try Processes.run(tool, [copy, String(speed)], environment: environment, timeout: 130)
            let lines = (result.standardOutput + "\n" + result.standardError).split(separator: "\n").map(String.init)
            let values = Dictionary(lines.filter { $0.hasPrefix("xine_frames ") }.map { line -> (String, String) in
                let parts = line.dropFirst("xine_frames ".count).split(separator: " ", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, second in first + " | " + second })
            // "demux_qt: stream #0: video [avc1], 1280 x 720." then "demux_qt:            start 0pts, 60 frames."
            // (or, for a fragmented movie, "demux_qt: added 3 fragments").
            let video = lines.firstIndex { $0.hasPrefix("demux_qt: stream #") && $0.contains(": video") }
            let next = video.flatMap { $0 + 1 < lines.count ? lines[$0 + 1] : nil } ?? ""
            let demuxed = next.hasSuffix(" frames.") ? next.components(separatedBy: "pts, ").last?.split(separator: " ").first.flatMap { Int($0) } : nil
            return Playback(result: result, values: values, demuxed: demuxed, hasTrack: video != nil,
                            shown: Int(values["shown"] ?? "") ?? -1, late: lines.filter { $0.contains("because it's too old") }.count)
        }
        var playback = try play(speed: 1_000_000)
        var notes = ""
        // Pictures missing, or (for a fragmented movie, with no count to check) thrown away late: the machine is
        // loaded, and the decoder may have skipped others unsaid.
        let missing = { (playback: Playback) in
            playback.demuxed.map { abs(playback.shown + playback.late - $0) > 1 } ?? (playback.hasTrack && playback.late > 0)
        }
        if missing(playback) {
            notes = "at 1x: \(playback.shown) shown, \(playback.late) late; at 0.5x: "
            playback = try play(speed: 500_000)
        }
        let (result, values, shown, late) = (playback.result, playback.values, playback.shown, playback.late)
        let demuxed = playback.hasTrack ? playback.demuxed ?? shown + late : nil
        var problems: [String] = []
        if result.status != 0 { problems.append("xine_frames exit \(result.status)") }
        for key in ["error", "message"] { if let value = values[key] { problems.append("\(key): \(value)") } }
        if values["demuxer"] != "MOV/MPEG-4" { problems.append("demuxer \(values["demuxer"] ?? "none")") }
        if values["has_video"] == "1" && values["video_handled"] != "1" { problems.append("video not handled") }
        if values["has_audio"] == "1" && values["audio_handled"] != "1" { problems.append("audio not handled") }
        if values["finished"] != "1" { problems.append("playback did not finish") }
        if values["has_video"] == "1" && demuxed == nil { problems.append("no video track in demux_qt's log") }
        if let demuxed, abs(shown + late - demuxed) > 1 { problems.append("\(shown) pictures shown and \(late) late of \(demuxed)") }
        notes += "\(shown) shown, \(late) late, \(values["video_codec"] ?? "?"), \(values["audio_codec"] ?? "?")"
        return Reading(videoFrames: demuxed ?? 0, duration: (Double(values["length_ms"] ?? "") ?? -1000) / 1000,
                       problems: problems.joined(separator: " | "), notes: notes)
    }
}

/// The C programs of Tests/IndependentReaders, built on first use into `folder` (next to the test bundle, so
/// kept between runs and rebuilt when the source is newer).
enum HelperTools {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../IndependentReaders").standardizedFileURL.path
    static let folder = URL(fileURLWithPath: Processes.reelExecutable).deletingLastPathComponent()
        .appendingPathComponent("independent-readers").path
    static let lock = NSLock()

    /// The built program `name` (from `name`.c, linked with pkg-config's `packages`); throws with the compiler's message.
    static func build(_ name: String, packages: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let (source, program) = ("\(sources)/\(name).c", "\(folder)/\(name)")
        let modified = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date }
        if let built = modified(program), let written = modified(source), built >= written { return program }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let partial = "\(program).\(getpid())"
        let compile = try Processes.shell("gcc -O1 -Wall -o \(IndependentReaders.quoted(partial)) \(IndependentReaders.quoted(source)) "
                                          + "$(pkg-config --cflags --libs \(packages)) 2>&1", timeout: 60)
        guard compile.status == 0 else { throw PictureComparison.SetupFailure("building \(name): \(compile.standardOutput)") }
        try? FileManager.default.removeItem(atPath: program)
        try FileManager.default.moveItem(atPath: partial, toPath: program)
        return program
    }
}
