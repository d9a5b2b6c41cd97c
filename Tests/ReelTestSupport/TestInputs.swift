import Foundation

/// Inputs made with the ffmpeg CLI for tests, as a user's files would be: any container, codec or defect
/// the command line can produce.
public enum TestInputs {
    /// Runs `ffmpeg -v error -y ARGUMENTS` (the output path is among them); throws with ffmpeg's message if it fails.
    public static func ffmpeg(_ arguments: [String], timeout: Double = 120) throws {
        let result = try Processes.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments, timeout: timeout)
        guard result.status == 0 else {
            throw PictureComparison.SetupFailure("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.standardError)")
        }
    }

    /// A short H.264/AAC movie of the test pattern and a tone.
    public static func movie(_ path: String, seconds: Double = 2, size: String = "320x240", rate: Int = 30) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)", "-f", "lavfi", "-i", "sine=frequency=440",
                    "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", path])
    }

    /// A lavfi graph of 64x64 pictures that carry their own frame number (plus `offset`): the left half's
    /// brightness is the number's low four bits, the right half's the next four, 13 levels apart inside
    /// video range (22...217), so they survive H.264 compression and a round trip through RGB (PNG stills).
    /// `rate` is lavfi's (30, 24, 30000/1001). `wide` carries four more bits in the blue difference (the same
    /// levels), so the numbers wrap at 4096 (136 s at 30 fps) rather than 256 (8.5 s): for a test whose
    /// pictures may jump further than 256 (a pause of unpaced inputs, which read as fast as they can).
    public static func numberedPictures(rate: String, offset: Int = 0, wide: Bool = false) -> String {
        let high = wide ? "22+13*mod(floor((N+\(offset))/256),16)" : "128"
        return "color=gray:size=64x64:rate=\(rate),geq=lum='22+13*if(lt(X,W/2),mod(N+\(offset),16),mod(floor((N+\(offset))/16),16))':cb='\(high)':cr=128"
    }

    /// The frame numbers of a video made of `numberedPictures` at 64x64, in presentation order (with `wide`,
    /// of `numberedPictures(wide: true)`: 0-4095).
    public static func frameNumbers(_ path: String, wide: Bool = false) throws -> [Int] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-numbers-\(UUID().uuidString).yuv").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        // Every decoded picture once, as stored (the rawvideo muxer would otherwise repeat pictures to a constant rate).
        try ffmpeg(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "64x64", raw])
        return numbers(inYUV420: Array(try Data(contentsOf: URL(fileURLWithPath: raw))), wide: wide)
    }

    /// Each half's brightness is read as the mean of a 16x16 block well inside it (rows 24-39, columns 8-23
    /// and 40-55), so noise on the pictures (a test's bursts of detail) does not flip a level; `wide`'s high
    /// bits as the mean of the 16x16 block in the middle of the blue difference's 32x32 plane.
    static func numbers(inYUV420 bytes: [UInt8], wide: Bool = false) -> [Int] {
        let frameBytes = 64 * 64 * 3 / 2
        return (0..<(bytes.count / frameBytes)).map { index in
            let frame = index * frameBytes
            func mean(fromColumn column: Int) -> Double {
                var sum = 0
                for row in 24..<40 {
                    for x in column..<(column + 16) { sum += Int(bytes[frame + row * 64 + x]) }
                }
                return Double(sum) / 256
            }
            let level = { (y: Double) in max(0, min(15, Int(((y - 22) / 13).rounded()))) }
            var high = 0
            if wide {
                var sum = 0
                for row in 8..<24 {
                    for x in 8..<24 { sum += Int(bytes[frame + 64 * 64 + row * 32 + x]) }
                }
                high = level(Double(sum) / 256)
            }
            return level(mean(fromColumn: 8)) + 16 * level(mean(fromColumn: 40)) + 256 * high
        }
    }

    /// Presentation times and durations of a file's video packets (ffprobe), in presentation order.
    public static func videoPacketTimes(_ path: String) throws -> [(time: Double, duration: Double)] {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                          "packet=pts_time,duration_time", "-of", "csv=p=0", path])
        return probe.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
            guard let time = fields.first ?? nil else { return nil }
            return (time, fields.count > 1 ? fields[1] ?? 0 : 0)
        }.sorted { $0.time < $1.time }
    }

    /// A file's first audio track decoded by ffmpeg to mono float samples at `sampleRate`, optionally only
    /// the window `from`..`to` seconds.
    public static func monoSamples(_ path: String, sampleRate: Int, from start: Double? = nil, to end: Double? = nil,
                                   stream: Int = 0) throws -> [Float] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-audio-\(UUID().uuidString).f32").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let trim = start.map { ["-af", "atrim=\($0)" + (end.map { ":\($0)" } ?? "")] } ?? []
        try ffmpeg(["-i", path, "-map", "0:a:\(stream)"] + trim + ["-ac", "1", "-ar", String(sampleRate), "-f", "f32le", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Writes a preset file for quick HEVC tests into `folder` and returns its path: 320x240 at 30 fps, x265
    /// ultrafast with its own B-frames (3), a keyframe every second.
    public static func smallHEVCPreset(in folder: String) throws -> String {
        let path = "\(folder)/small-hevc.json"
        try """
            {"name": "small-hevc", "video": {"size": "320x240", "fps": 30, "codec": "hevc", "speedPreset": "ultrafast",
             "crf": 28, "profile": "main", "keyframeInterval": 30},
             "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The codec and codec tag of a file's first video stream, as ffprobe reads them ("hevc", "hvc1").
    public static func videoCodecAndTag(_ path: String) throws -> (codec: String, tag: String) {
        let video = try FFprobe.stream(path, type: "video")
        return (video?["codec_name"] as? String ?? "", video?["codec_tag_string"] as? String ?? "")
    }

    /// The JSON object a command printed on stdout.
    public static func json(_ output: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw PictureComparison.SetupFailure("not a JSON object: \(output)")
        }
        return object
    }
}
