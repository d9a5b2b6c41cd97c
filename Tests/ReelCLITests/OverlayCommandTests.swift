import Foundation
import ReelTestSupport
import Testing

/// `--overlay` and `--filter` as a user runs them: the burned-in timecode reads the recording's clock
/// (compared with the same text drawn by ffmpeg's own drawtext at the expected time and one picture off),
/// a 3:2 telecined source comes out progressive after `--filter deinterlace`, and mistakes are one line.
@Suite struct OverlayCommandTests {
    /// The recording's luma against reference pictures of the timecode text: the expected time matches far
    /// better than a picture earlier or later.
    @Test func theTimecodeReadsTheRecordingsClock() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/clock.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:color=black:size=320x240:rate=30?realtime=0", "--audio", "none",
                                      "--preset", "352x288", "--size", "320x240", "--max-duration", "2",
                                      "--overlay", "text:%{timecode}?at=top-left&size=0.1&box=0"])
        #expect(run.status == 0, "\(run.standardError)")
        let recorded = try ComposedPictures(output)
        #expect(recorded.frames.count == 60)
        // Reel's placement: 3 % of the height from the edges (7 pixels), text 24 pixels high.
        func reference(_ text: String) throws -> ComposedPictures {
            let path = "\(folder)/reference-\(text.filter(\.isNumber)).mov"
            let escaped = text.replacingOccurrences(of: ":", with: "\\:")
            try TestInputs.ffmpeg(["-f", "lavfi", "-i", "color=black:size=320x240:rate=30", "-frames:v", "1", "-vf",
                                   "drawtext=text='\(escaped)':font=DejaVu Sans:fontsize=24:fontcolor=0xffffff:x=7:y=7",
                                   "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", path])
            return try ComposedPictures(path)
        }
        /// Pixels of the text's area where one picture has ink and the other none.
        func mismatches(_ index: Int, _ picture: ComposedPictures) -> Int {
            var count = 0
            for row in 0..<40 { for column in 0..<200 where abs(Int(recorded.frames[index][row * 320 + column]) - Int(picture.frames[0][row * 320 + column])) > 96 { count += 1 } }
            return count
        }
        // Milliseconds are cut, not rounded (picture 59 is at 1.9667 s).
        for (index, expected, other) in [(45, "00:00:01.500", "00:00:01.533"), (59, "00:00:01.966", "00:00:01.933"), (0, "00:00:00.000", "00:00:00.033")] {
            let right = mismatches(index, try reference(expected)), wrong = mismatches(index, try reference(other))
            #expect(right < 20 && wrong > 60, "picture \(index): \(right) pixels differ from \(expected), \(wrong) from \(other)")
        }
    }

    /// 24 fps pictures telecined 3:2 to 30 interlaced frames (two of every five are made of two pictures'
    /// fields, combed where things move); recorded with --filter deinterlace, none is combed. (ffmpeg's idet
    /// was tried as the oracle: its multi-frame verdict sticks to interlaced once it has seen the pattern.)
    @Test func deinterlacedPicturesAreProgressive() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/telecined.mkv"
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=24000/1001", "-t", "3", "-vf", "telecine=first_field=t:pattern=23",
                               "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10", "-flags", "+ildct+ilme", "-x264-params", "tff=1", source])
        /// Pictures with combing: over 200 pixels that differ by more than 30 from the average of the lines above
        /// and below while those two agree (the lines of one field between the other's).
        func combed(_ path: String) throws -> Int {
            let pictures = try ComposedPictures(path)
            let (width, height) = (pictures.width, pictures.height)
            return pictures.frames.filter { luma in
                var count = 0
                for row in 1..<(height - 1) {
                    for column in stride(from: 0, to: width, by: 2) {
                        let up = Int(luma[(row - 1) * width + column]), middle = Int(luma[row * width + column]), down = Int(luma[(row + 1) * width + column])
                        if abs(up - down) < 10 && abs(2 * middle - up - down) > 60 { count += 1 }
                    }
                }
                return count > 200
            }.count
        }
        let before = try combed(source)
        let output = "\(folder)/progressive.mov"
        let run = try Processes.reel(["record", output, "--video", "file:\(source)", "--audio", "none", "--preset", "352x288",
                                      "--fps", "29.97", "--filter", "deinterlace", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let after = try combed(output)
        // Two of every five telecined frames are combed (90 frames); none after.
        #expect(before >= 30 && after == 0, "\(before) combed pictures before, \(after) after")
    }

    /// A house preset's overlays (an image beside the preset file, by a relative path) are drawn on every
    /// picture, with the recording's own `--overlay` after them; a preset's bad overlay names its file and field.
    @Test func aPresetsOverlaysAreDrawn() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: "\(folder)/house", withIntermediateDirectories: true)
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "color=white:size=64x64", "-frames:v", "1", "\(folder)/house/logo.png"])
        let preset = #"{"name": "house", "video": {"size": "320x240", "fps": 30, "codec": "h264", "speedPreset": "ultrafast", "crf": 20, "profile": "high", "keyframeInterval": 30, "overlays": ["image:logo.png?at=0,0&size=0.25"]}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}"#
        try preset.write(toFile: "\(folder)/house/house.json", atomically: true, encoding: .utf8)
        let output = "\(folder)/logo.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:color=black:size=320x240:rate=30?realtime=0", "--audio", "none",
                                      "--preset", "house/house.json", "--max-duration", "1", "--overlay", "image:house/logo.png?at=0.75,0.75&size=0.25"],
                                     currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let pictures = try ComposedPictures(output)
        #expect(pictures.frames.count == 30)
        func luma(_ x: Int, _ y: Int) -> Int { Int(pictures.frames[15][y * 320 + x]) }
        // The preset's logo fills the top left 80x80, the command line's the bottom right; the rest stays black.
        #expect(luma(40, 40) > 200 && luma(280, 220) > 200 && luma(160, 120) < 40 && luma(280, 40) < 40,
                "\(luma(40, 40)) \(luma(280, 220)) \(luma(160, 120)) \(luma(280, 40))")
        let broken = preset.replacingOccurrences(of: "logo.png?at", with: "missing.png?at")
        try broken.write(toFile: "\(folder)/house/broken.json", atomically: true, encoding: .utf8)
        let refused = try Processes.reel(["record", "\(folder)/other.mov", "--preset", "\(folder)/house/broken.json", "--max-duration", "1"])
        #expect(refused.status == 2 && refused.standardError.contains("broken.json") && refused.standardError.contains("overlays")
                && refused.standardError.contains("missing.png"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/other.mov"))
    }

    @Test(arguments: [
        (["--overlay", "clock"], "overlay 'clock': write text:TEXT or image:FILE.png"),
        (["--overlay", "text:%{date}"], "unknown field '%{date}'"),
        (["--overlay", "image:missing.png"], "cannot read missing.png"),
        (["--overlay", "text:x?at=middle"], "at=middle: use top-left"),
        (["--overlay", "text:x?size=2"], "size=2: use a fraction"),
        (["--filter", "sharpen"], "unknown picture filter 'sharpen'"),
    ])
    func mistakesAreOneLine(_ example: ([String], String)) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Processes.reel(["record", "\(folder)/out.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                      "--max-duration", "1"] + example.0, currentDirectory: folder)
        #expect(run.status == 2 && run.standardError.contains(example.1) && run.standardError.split(separator: "\n").count == 1,
                "\(run.status) \(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
