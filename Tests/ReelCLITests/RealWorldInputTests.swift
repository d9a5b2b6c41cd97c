import Foundation
import ReelTestSupport
import Testing

/// Issue 12: inputs and arguments real people give Reel, each row of the adversarial pass with its expected
/// behaviour. Inputs are made with the ffmpeg CLI; outputs are checked by decoding them.
@Suite struct RealWorldInputTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "low"]

    /// Runs reel in a fresh folder prepared by `setUp`; returns the folder (removed by the caller) and the result.
    static func run(_ arguments: [String], setUp: (String) throws -> Void = { _ in }) throws -> (String, ProcessResult) {
        let folder = try Scratch.folder()
        try setUp(folder)
        return (folder, try Processes.reel(arguments, currentDirectory: folder, timeout: 60))
    }

    static func expectUsageError(_ result: ProcessResult, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "exit \(result.status): \(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("reel: error: ") && result.standardError.contains(mentions),
                "\(result.standardError)", sourceLocation: sourceLocation)
    }

    // Row 1: numbers past what the clocks can count are usage errors, not crashes.
    @Test(arguments: [
        (["record", "out.mov", "--max-duration", "9.3e12"] + fast, "--max-duration"),
        (["record", "out.mov", "--max-duration", "1e400"] + fast, "--max-duration"),
        (["transcode", "in.mov", "out.mov", "--max-duration", "1e15"], "--max-duration"),
        (["grab", "in.mov", "out.jpg", "--at", "9.3e12"], "--at"),
        (["capture", "c", "--hold-threshold", "1e300"] + fast, "--hold-threshold"),
        (["snap", "s.jpg", "--skip-frames", "99999999999999999999"], "--skip-frames"),
        (["record", "out.mov", "--fps", "1e300"] + fast, "--fps"),
        (["record", "out.mov", "--device-timeout", "1e20"] + fast, "--device-timeout"),
        (["record", "out.mov", "--fragment-interval", "1e30"] + fast, "--fragment-interval"),
        (["batch", "jobs.json", "--parallel", "9223372036854775807"], "--parallel"),
    ])
    func hugeNumbersAreUsageErrors(_ arguments: [String], _ option: String) throws {
        let (folder, result) = try Self.run(arguments) { folder in
            try TestInputs.movie("\(folder)/in.mov", seconds: 0.5)
            try #"{"jobs": [{"name": "g", "type": "grab", "input": "in.mov", "output": "g.jpg"}]}"#
                .write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.expectUsageError(result, mentions: option)
        #expect(Scratch.files(in: folder) == ["in.mov", "jobs.json"])
    }

    @Test func hugeNumbersInJobFilesAreOutOfRange() throws {
        let (folder, result) = try Self.run(["batch", "jobs.json"]) { folder in
            try #"{"jobs": [{"name": "t", "type": "transcode", "input": "in.mov", "maxDuration": 1e15, "output": "t.mov"}]}"#
                .write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.expectUsageError(result, mentions: "jobs.t.maxDuration")
        #expect(result.standardError.contains("out of range"))
    }

    // Row 8: the output may never replace its own input, by name, symbolic link or hard link.
    @Test func transcodingAFileOntoItselfIsRefused() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/same.mov", seconds: 0.5)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/link.mov", withDestinationPath: "same.mov")
        try FileManager.default.linkItem(atPath: "\(folder)/same.mov", toPath: "\(folder)/hard.mov")
        let original = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/same.mov"))
        for output in ["same.mov", "./same.mov", "link.mov", "hard.mov"] {
            let result = try Processes.reel(["transcode", "same.mov", output, "--overwrite", "--preset", "low"], currentDirectory: folder)
            Self.expectUsageError(result, mentions: "overwrite the input file")
        }
        let record = try Processes.reel(["record", "link.mov", "--video", "file:same.mov", "--audio", "none", "--overwrite"],
                                        currentDirectory: folder)
        Self.expectUsageError(record, mentions: "overwrite the input file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/same.mov")) == original)
        #expect(Scratch.files(in: folder) == ["hard.mov", "link.mov", "same.mov"])
    }

    // Rows 9 and 18: preset values the encoders would refuse or silently ignore are errors naming file and field.
    @Test(arguments: [
        (#""profile": "baseline", "bFrames": 2"#, #""sampleRate": 48000"#, "video.bFrames"),
        (#""profile": "high""#, #""sampleRate": 9000"#, "audio.sampleRate"),
        (#""profile": "high""#, #""sampleRate": 11111"#, "audio.sampleRate"),
    ])
    func presetValuesTheEncoderCannotHonourAreRejected(_ video: String, _ audio: String, _ field: String) throws {
        let (folder, result) = try Self.run(["record", "out.mov", "--preset", "odd.json", "--max-duration", "0.5",
                                             "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]) { folder in
            try """
                {"name": "odd", "video": {"size": "320x240", "fps": 30, "x264Preset": "veryfast", "crf": 23,
                 "keyframeInterval": 30, \(video)}, "audio": {"channels": 2, "bitrate": "96k", \(audio)}}
                """.write(toFile: "\(folder)/odd.json", atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.expectUsageError(result, mentions: "odd.json: \(field)")
        #expect(Scratch.files(in: folder) == ["odd.json"])
    }

    @Test func baselineWithoutBFramesRecordsBaseline() throws {
        let (folder, result) = try Self.run(["record", "out.mov", "--preset", "low", "--max-duration", "1"] + Self.fast.prefix(4))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.status == 0, "\(result.standardError)")
        let video = try #require(try FFprobe.stream("\(folder)/out.mov", type: "video"))
        #expect(video["profile"] as? String == "Constrained Baseline" && video["has_b_frames"] as? Int == 0, "\(video)")
    }

    // Row 16: every job's elapsed time is the time it really took.
    @Test func batchReportsEachJobsElapsedTime() throws {
        let (folder, result) = try Self.run(["batch", "jobs.json", "--json"]) { folder in
            try """
                {"jobs": [{"name": "r", "type": "record", "video": "lavfi:testsrc2?realtime=0", "audio": "none", "preset": "low",
                           "maxDuration": 1, "output": "r.mov"},
                          {"name": "paced", "type": "record", "video": "lavfi:testsrc2", "audio": "none", "preset": "low",
                           "maxDuration": 0.5, "output": "p.mov"}]}
                """.write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.status == 0, "\(result.standardError)")
        let jobs = try #require(try TestInputs.json(result.standardOutput)["jobs"] as? [[String: Any]])
        let elapsed = Dictionary(uniqueKeysWithValues: jobs.map { ($0["name"] as! String, $0["elapsed"] as? Double ?? 0) })
        #expect(elapsed["r"]! > 0.01, "\(elapsed)")
        // A paced source runs in real time: half a second of media takes at least that long.
        #expect(elapsed["paced"]! >= 0.45, "\(elapsed)")
    }

    // Row 17: a capture that ends as a photo describes the photo, not the deleted movie.
    @Test func aTapsResultDescribesThePhoto() throws {
        let (folder, result) = try Self.run(["capture", "tap", "--max-duration", "0.3", "--json"] + Self.fast)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let size = try FileManager.default.attributesOfItem(atPath: "\(folder)/tap.jpg")[.size] as? Int
        #expect(json["kind"] as? String == "photo")
        #expect((json["output"] as? String)?.hasSuffix("tap.jpg") == true, "\(json)")
        #expect(json["bytes"] as? Int == size && json["fragments"] == nil, "\(json)")
        #expect(Scratch.files(in: folder) == ["tap.jpg"])
    }

    // Row 19: an existing folder as the output is refused up front, leaving nothing behind.
    @Test func aFolderAsTheOutputIsRefusedUpFront() throws {
        let (folder, result) = try Self.run(["transcode", "in.mov", "dir.mov", "--overwrite", "--preset", "low"]) { folder in
            try TestInputs.movie("\(folder)/in.mov", seconds: 0.5)
            try FileManager.default.createDirectory(atPath: "\(folder)/dir.mov", withIntermediateDirectories: false)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.expectUsageError(result, mentions: "is a folder")
        #expect(Scratch.files(in: folder) == ["dir.mov", "in.mov"])
        let grab = try Processes.reel(["grab", "in.mov", "dir.mov", "--overwrite"], currentDirectory: folder)
        #expect(grab.status == 2)
        try FileManager.default.createDirectory(atPath: "\(folder)/pic.jpg", withIntermediateDirectories: false)
        Self.expectUsageError(try Processes.reel(["grab", "in.mov", "pic.jpg", "--overwrite"], currentDirectory: folder),
                              mentions: "is a folder")
        // A named pipe as the output would block the writer until a reader came: refused the same way.
        #expect(mkfifo("\(folder)/pipe.mov", 0o600) == 0)
        Self.expectUsageError(try Processes.reel(["record", "pipe.mov", "--overwrite", "--max-duration", "0.2"] + Self.fast,
                                                 currentDirectory: folder), mentions: "not a regular file")
    }

    // Row 20: a still onto a read-only or a full filesystem gets one clear line.
    @Test func grabOntoAReadOnlyOrFullFilesystemSaysSo() throws {
        guard let small = try SmallFilesystem.mount(megabytes: 1, for: "grabOntoAReadOnlyOrFullFilesystemSaysSo") else { return }
        defer { small.unmount() }
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/in.mov", seconds: 0.5, size: "640x480")
        // Full: fill every block, then grab a PNG that cannot fit.
        _ = try Processes.shell("dd if=/dev/zero of=\(small.path)/fill bs=4k 2>/dev/null; sync")
        let full = try Processes.reel(["grab", "\(folder)/in.mov", "\(small.path)/full.png"])
        #expect(full.status == 1, "\(full.standardError)")
        #expect(full.standardError.split(separator: "\n").count == 1 && full.standardError.contains("No space left on device"),
                "\(full.standardError)")
        #expect(!full.standardError.contains("CocoaError"))
        #expect(Scratch.files(in: small.path) == ["fill"], "nothing half-written is left")
        // Read-only: refused before decoding, as record and transcode refuse an unwritable folder.
        #expect(try Processes.shell("mount -o remount,ro \(small.path)").status == 0)
        Self.expectUsageError(try Processes.reel(["grab", "\(folder)/in.mov", "\(small.path)/ro.jpg"]), mentions: "not writable")
    }

    /// Seconds at which the audio first gets loud after `after` (8 kHz resolution).
    static func onset(_ path: String, after: Double) throws -> Double? {
        let samples = try TestInputs.monoSamples(path, sampleRate: 8000)
        let first = Int(after * 8000)
        guard first < samples.count, let index = samples[first...].firstIndex(where: { abs($0) > 0.2 }) else { return nil }
        return Double(index) / 8000
    }

    // Row 3: MPEG-TS segments joined end to end (timestamps fall back from 101.5 s to 5 s, or leap 600 s ahead)
    // play as one timeline, pictures and sound still together after the join.
    @Test(arguments: [5, 700])
    func joinedTransportStreamsPlayAsOneTimeline(secondStart: Int) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, offset, pictures, tone) in [("a", 100, 0, 440), ("b", secondStart, 100, 1000)] {
            try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30", offset: pictures),
                                   "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000", "-t", "1.5",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-c:a", "mp2",
                                   "-output_ts_offset", String(offset), "\(folder)/\(name).ts"])
        }
        let joined = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a.ts")) + Data(contentsOf: URL(fileURLWithPath: "\(folder)/b.ts"))
        try joined.write(to: URL(fileURLWithPath: "\(folder)/joined.ts"))
        let result = try Processes.reel(["transcode", "joined.ts", "out.mov", "--preset", "352x288", "--size", "64x64", "--json"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let movie = try MediaInspection(path: "\(folder)/out.mov")
        #expect(abs(movie.videoDuration - 3.0) < 0.1 && abs(movie.audioDuration - 3.0) < 0.1, "\(movie.videoDuration) \(movie.audioDuration)")
        // Second segment's pictures (numbered from 100) and its 1000 Hz tone both begin at 1.5 s.
        let numbers = try TestInputs.frameNumbers("\(folder)/out.mov")
        #expect(numbers.prefix(45) == ArraySlice(0..<45), "\(numbers)")
        #expect(numbers.dropFirst(45).prefix(44) == ArraySlice(100..<144), "\(numbers)")
        for (start, frequency) in [(0.5, 440.0), (2.0, 1000.0)] {
            let samples = try TestInputs.monoSamples("\(folder)/out.mov", sampleRate: 48000, from: start, to: start + 0.5)
            #expect(abs(ToneAnalysis.frequency(of: samples, sampleRate: 48000) - frequency) < 20, "tone at \(start) s")
        }
    }

    // Row 4: a hole in a file's audio stays a hole: every later sound plays at its own time, with its picture.
    @Test(arguments: [("mkv", "pcm_s16le"), ("ts", "mp2")])
    func aHoleInAFilesAudioKeepsLaterSoundsInPlace(container: String, codec: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = "\(folder)/gap.\(container)"
        // A beep from 2.5 s to 2.7 s; the audio between 1.5 and 1.8 s is missing altogether (no packets).
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=4",
                               "-f", "lavfi", "-i", "aevalsrc='0.8*sin(2*PI*1000*t)*between(t,2.5,2.7)':sample_rate=48000:duration=4",
                               "-af", "aselect='not(between(t,1.5,1.8))'", "-c:v", "libx264", "-preset", "ultrafast",
                               "-c:a", codec, input])
        let result = try Processes.reel(["transcode", input, "out.mov", "--preset", "low", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let onset = try #require(try Self.onset("\(folder)/out.mov", after: 0.1))
        #expect(abs(onset - 2.5) < 0.03, "the beep plays at \(onset) s, not 2.5 s")
        let movie = try MediaInspection(path: "\(folder)/out.mov")
        #expect(abs(movie.audioDuration - 4.0) < 0.05, "audio \(movie.audioDuration) s")
    }

    // Row 5: grab returns the exact frame shown at the time, in MPEG-TS too (H.264 with 2 s GOPs, MPEG-2).
    @Test(arguments: [("libx264", "60"), ("mpeg2video", "15")])
    func grabInATransportStreamTakesTheFrameShownAtTheTime(codec: String, gop: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-t", "4", "-c:v", codec,
                               "-g", gop, "-q:v", "2", "-crf", "10", "\(folder)/in.ts"])
        for (time, frame) in [(0.5, 15), (1.0, 30), (1.95, 58), (3.9, 117), (3.99, 119), (0, 0)] {
            let grab = try Processes.reel(["grab", "in.ts", "g.png", "--at", String(time), "--overwrite"], currentDirectory: folder)
            #expect(grab.status == 0, "\(time): \(grab.standardError)")
            #expect(try TestInputs.frameNumbers("\(folder)/g.png") == [frame], "--at \(time)")
        }
    }

    // Rows 6 and 13: video that starts 2 s after the audio. A transcode keeps both tracks on the file's
    // timeline (the first picture shown from 0), up to the limit; grab counts on that timeline.
    @Test func videoThatStartsLateKeepsTheFilesTimeline() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-f", "lavfi",
                               "-i", "sine=frequency=440:sample_rate=48000:duration=4", "-filter_complex", "[0:v]trim=duration=2,setpts=PTS+2/TB[v]",
                               "-map", "[v]", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-c:a", "pcm_s16le",
                               "\(folder)/late.mkv"])
        for limit in [1.0, 1.5, 3.0] {
            let result = try Processes.reel(["transcode", "late.mkv", "o.mov", "--preset", "352x288", "--size", "64x64",
                                             "--max-duration", String(limit), "--overwrite", "--json"], currentDirectory: folder)
            #expect(result.status == 0, "\(result.standardError)")
            let json = try TestInputs.json(result.standardOutput)
            #expect(json["stopReason"] as? String == "maxDurationReached", "\(json)")
            let movie = try MediaInspection(path: "\(folder)/o.mov")
            #expect(abs(movie.videoDuration - limit) < 0.034 && movie.videoDuration <= limit + 1e-6, "video \(movie.videoDuration)")
            #expect(abs((json["audioSamples"] as? Double ?? 0) - limit * 48000) < 2, "\(json)")
            let numbers = try TestInputs.frameNumbers("\(folder)/o.mov")
            // Before 2 s the first picture is shown; at 3 s, picture 30.
            #expect(numbers.count == Int((limit * 30).rounded()), "\(numbers.count) frames")
            #expect(numbers.prefix(60).allSatisfy { $0 == 0 })
            if limit == 3.0 { #expect(Array(numbers.dropFirst(60).prefix(30)) == Array(0..<30), "\(numbers)") }
        }
        let grab = try Processes.reel(["grab", "late.mkv", "g.png", "--at", "3"], currentDirectory: folder)
        #expect(grab.status == 0, "\(grab.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/g.png") == [30])
    }

    // Rows 7 and 15: a size limit too small for the tier's keyframes is a usage error up front; a limit the
    // tier accepts is used to at least 90 %, with every requested track in the file.
    @Test(arguments: [("1080p", "32Ki"), ("1080p", "40K"), ("720p", "40K"), ("720p", "400K")])
    func aSizeLimitBelowTheTiersKeyframesIsRefused(preset: String, limit: String) throws {
        let (folder, result) = try Self.run(["transcode", "in.mov", "out.mov", "--preset", preset, "--max-size", limit]) { folder in
            try TestInputs.movie("\(folder)/in.mov", seconds: 0.5)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.expectUsageError(result, mentions: "too small")
        #expect(Scratch.files(in: folder) == ["in.mov"])
        let record = try Processes.reel(["record", "r.mov", "--preset", preset, "--max-size", limit] + Self.fast.prefix(4),
                                        currentDirectory: folder)
        Self.expectUsageError(record, mentions: "use at least")
    }

    @Test(arguments: [("720p", "461K"), ("1080p", "1037K")])
    func theSmallestAcceptedLimitIsMostlyUsedWithBothTracks(preset: String, limit: String) throws {
        let (folder, result) = try Self.run(["transcode", "in.mov", "out.mov", "--preset", preset, "--max-size", limit, "--json"]) { folder in
            try TestInputs.movie("\(folder)/in.mov", seconds: 4, size: "1280x720")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let bytes = try #require(json["bytes"] as? Int)
        let allowed = Int(limit.dropLast())! * 1000
        #expect(json["stopReason"] as? String == "maxFileSizeReached" && bytes <= allowed && bytes >= allowed * 9 / 10, "\(json)")
        let movie = try MediaInspection(path: "\(folder)/out.mov")
        #expect(movie.videoFrames == json["videoFrames"] as? Int && movie.videoFrames > 0 && movie.audioSamples > 0)
    }

    @Test func aDiskTooFullForTheFirstPictureLeavesNothing() throws {
        guard let small = try SmallFilesystem.mount(megabytes: 2, for: "aDiskTooFullForTheFirstPictureLeavesNothing") else { return }
        defer { small.unmount() }
        // One MiB free: less than a 1080p fragment needs.
        _ = try Processes.shell("dd if=/dev/zero of=\(small.path)/fill bs=1k count=1024 2>/dev/null")
        let result = try Processes.reel(["record", "\(small.path)/full.mov", "--preset", "1080p", "--min-free", "0",
                                         "--max-duration", "5", "--json"] + Self.fast.prefix(4))
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardError.contains("disk filled"),
                "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["recordedSuccessfully"] as? Bool == false && json["audioSamples"] as? Int == 0 && json["bytes"] as? Int == 0)
        #expect(Scratch.files(in: small.path) == ["fill"], "nothing is left under the output name")
    }

    // Row 12: cover art is a picture, not a video track: an album track becomes an audio-only movie; grab
    // shows the art, as players do.
    @Test(arguments: [("mp3", "libmp3lame", "mjpeg"), ("m4a", "aac", "png")])
    func coverArtIsNoVideoTrack(container: String, audio: String, picture: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = "\(folder)/song.\(container)"
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "sine=duration=2:sample_rate=44100", "-f", "lavfi", "-i", "testsrc2=size=300x300:duration=0.04",
                               "-map", "0", "-map", "1", "-frames:v", "1", "-c:a", audio, "-c:v", picture,
                               "-disposition:v", "attached_pic", input])
        let result = try Processes.reel(["transcode", input, "out.mov", "--preset", "low", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 0 && abs((json["duration"] as? Double ?? 0) - 2) < 0.05, "\(json)")
        let types = try FFprobe.streams("\(folder)/out.mov").compactMap { $0["codec_type"] as? String }
        #expect(types == ["audio"])
        let probe = try Processes.reel(["probe", input], currentDirectory: folder)
        #expect(probe.status == 0 && probe.standardOutput.contains("(cover art)"), "\(probe.standardOutput)")
        let grab = try Processes.reel(["grab", input, "art.png"], currentDirectory: folder)
        #expect(grab.status == 0, "\(grab.standardError)")
        let art = try #require(try FFprobe.stream("\(folder)/art.png", type: "video"))
        #expect(art["width"] as? Int == 300 && art["height"] as? Int == 300)
    }

    // Row 21: grab past the data of a cut-short file is a usage error that says so, not a decoder's words.
    @Test func grabPastTheDataOfATruncatedFileSaysSo() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-t", "4", "-c:v", "libx264",
                               "-preset", "ultrafast", "-movflags", "+faststart", "\(folder)/whole.mp4"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/whole.mp4"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: "\(folder)/cut.mp4"))
        let early = try Processes.reel(["grab", "cut.mp4", "early.png", "--at", "0.5"], currentDirectory: folder)
        #expect(early.status == 0, "\(early.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/early.png") == [15])
        let late = try Processes.reel(["grab", "cut.mp4", "late.png", "--at", "3.5"], currentDirectory: folder)
        Self.expectUsageError(late, mentions: "damaged or cut short")
        #expect(!late.standardError.contains("avcodec"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/late.png"))
    }

    // Row 2: a named pipe or a shell's <(...) is read once, as ffmpeg does; every wait on it ends on SIGTERM.
    @Test func namedPipesAreReadOnceAndEveryWaitIsInterruptible() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i",
                               "sine=duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "\(folder)/x.mkv"])
        #expect(mkfifo("\(folder)/pipe", 0o600) == 0)
        let viaFIFO = try Processes.shell(
            "cd \(folder) && (cat x.mkv > pipe &) && timeout -k 1 30 \(Processes.reelExecutable) transcode pipe fifo.mov --preset low --json",
            timeout: 40)
        #expect(viaFIFO.status == 0, "\(viaFIFO.standardError)")
        let substituted = try Processes.run("/bin/bash", ["-c",
            "cd \(folder) && timeout -k 1 30 \(Processes.reelExecutable) transcode <(cat x.mkv) sub.mov --preset low --json"], timeout: 40)
        #expect(substituted.status == 0, "\(substituted.standardError)")
        for movie in ["fifo.mov", "sub.mov"] {
            let inspection = try MediaInspection(path: "\(folder)/\(movie)")
            #expect(inspection.videoFrames == 30 && abs(inspection.audioDuration - 2) < 0.1, "\(movie)")
        }

        // Nobody writes: SIGTERM ends the wait at once, exit 1, nothing left.
        /// Transcodes the pipe, sends SIGTERM after `delay` seconds; returns the result and how long the stop took.
        func transcodeStopped(to output: String, after delay: UInt32) throws -> (ProcessResult, Double) {
            let running = try Processes.start(Processes.reelExecutable, ["transcode", "pipe", output, "--preset", "low"],
                                              currentDirectory: folder)
            usleep(delay)
            let signalled = Date()
            kill(running.process.processIdentifier, SIGTERM)
            let result = Processes.finish(running, timeout: 10)
            return (result, Date().timeIntervalSince(signalled))
        }
        let (stopped, stopTime) = try transcodeStopped(to: "never.mov", after: 700_000)
        #expect(stopTime < 2, "SIGTERM took \(stopTime) s")
        #expect(stopped.status == 1 && stopped.standardError.contains("stopped while opening"), "\(stopped.standardError)")
        #expect(!Scratch.files(in: folder).contains { $0.contains("never") })

        // A writer that stalls half-way: SIGTERM finalizes what came (exit 0), without waiting for more.
        let stalling = try Processes.start("/bin/sh", ["-c", "(head -c 40000 x.mkv; sleep 30) > pipe"], currentDirectory: folder)
        defer { stalling.process.terminate() }
        let (partial, cutTime) = try transcodeStopped(to: "part.mov", after: 1_500_000)
        #expect(cutTime < 3 && partial.status == 0, "\(partial.standardError)")
        #expect(try MediaInspection(path: "\(folder)/part.mov").videoFrames > 0)
    }
}
