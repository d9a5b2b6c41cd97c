import Foundation
import ReelTestSupport
import Testing

/// Issue 15: continuous recording in segments. The source's pictures carry their own number and its sound is
/// a pure tone, so joining the segments back shows whether any picture or sample was lost or repeated at a
/// boundary, and whether the audio runs on without a click.
@Suite struct SegmentTests {
    static let tone = 440.0

    /// Every segment decoded: frames and samples as the JSON says, a keyframe first, audio covering the video
    /// to within one AAC frame; joined, the picture numbers run on one by one and the tone without a break.
    /// `lastCutByLimit`: a size limit ended the last segment, cutting its tracks where the interleaved
    /// packets stopped fitting (as it cuts any movie): its audio and video then end within 0.1 s of each other.
    static func checkJoined(_ segments: [[String: Any]], expectedFrames: [Int], sampleRate: Int = 48000,
                            recordingStartSkip: Int = 0, lastCutByLimit: Bool = false) throws -> (numbers: [Int], samples: [Float]) {
        #expect(segments.map { $0["videoFrames"] as? Int ?? -1 } == expectedFrames)
        var numbers: [Int] = []
        var samples: [Float] = []
        for segment in segments {
            let path = try #require(segment["output"] as? String)
            #expect(FileManager.default.fileExists(atPath: path), "\(path) missing")
            let movie = try MediaInspection(path: path)
            #expect(movie.videoFrames == segment["videoFrames"] as? Int, "\(path): \(movie.videoFrames) frames")
            let played = try SegmentInspection.playedAudioSamples(path)
            // A live recording's sound may begin a few samples after its first picture (the track then starts
            // that much later); every later segment starts on its boundary's sample.
            let lateStart = segment["index"] as? Int == 1 ? recordingStartSkip : 0
            let counted = segment["audioSamples"] as? Int ?? -1
            let cut = lastCutByLimit && segment["index"] as? Int == segments.last?["index"] as? Int
            #expect(cut ? abs(played - counted) <= 1024 : played >= counted && played - counted <= lateStart,
                    "\(path): \(played) samples played, \(counted) counted")
            let videoSeconds = Double(movie.videoFrames) / 30
            #expect(abs(Double(played) / Double(sampleRate) - videoSeconds) <= (cut ? 0.1 : 1024.0 / Double(sampleRate) + 1e-6),
                    "\(path): audio \(played) samples against \(movie.videoFrames) frames")
            #expect(try SegmentInspection.startsWithKeyframe(path), "\(path) starts with a keyframe")
            numbers += try TestInputs.frameNumbers(path)
            samples += try SegmentInspection.playedMono(path, sampleRate: sampleRate)
        }
        let steps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        #expect(steps.allSatisfy { $0 == 1 }, "picture numbers step by one across segments: \(steps.enumerated().filter { $0.element != 1 }.prefix(10))")
        #expect(numbers.count == expectedFrames.reduce(0, +))
        let error = SegmentInspection.worstToneError(samples, frequency: tone, sampleRate: sampleRate, skip: recordingStartSkip)
        #expect(error < 0.1, "the tone runs on across the joins (worst 5 ms error \(error) of its amplitude)")
        return (numbers, samples)
    }

    /// Duration segments of a paced (live) and an unpaced source: exact to the frame, every frame and sample
    /// once; the unpaced one holds exactly the frames and samples of the same recording unsplit.
    @Test(arguments: [false, true])
    func durationSegmentsHoldEveryFrameAndSampleOnce(live: Bool) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pace = live ? "" : "?realtime=0"
        let sources = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))\(pace)", "--audio", "lavfi:sine=frequency=440\(pace)",
                       "--preset", "352x288", "--size", "64x64", "--quiet", "--json"]
        let (duration, segment, expected) = live ? ("4", "1.5", [45, 45, 30]) : ("7", "2", [60, 60, 60, 30])
        let result = try Processes.reel(["record", "cut-{index}.mov", "--max-duration", duration, "--segment-duration", segment] + sources,
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.map { $0["output"] as? String } == expected.indices.map { "\(folder)/cut-\(String(format: "%03d", $0 + 1)).mov" })
        #expect(segments.map { $0["index"] as? Int } == Array(1...expected.count))
        #expect(json["videoFrames"] as? Int == expected.reduce(0, +))
        #expect(json["audioSamples"] as? Int == segments.reduce(0) { $0 + ($1["audioSamples"] as? Int ?? 0) })
        #expect(json["output"] as? String == "\(folder)/cut-{index}.mov")
        // A live recording's first milliseconds are the encoder starting from silence, as in any movie.
        let joined = try SegmentTests.checkJoined(segments, expectedFrames: expected, recordingStartSkip: live ? 1440 : 0)
        #expect(joined.samples.count == Int(Double(duration)! * 48000))
        // Each segment plays alone in a second reader, as long as it should.
        let second = try IndependentReaders.gstreamer(segments[1]["output"] as! String)
        #expect(second.videoFrames == expected[1] && abs(second.duration - Double(expected[1]) / 30) < 0.03 && second.problems.isEmpty, "\(second)")
        guard !live else { return }
        let whole = try Processes.reel(["record", "whole.mov", "--max-duration", duration] + sources, currentDirectory: folder)
        #expect(whole.status == 0, "\(whole.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/whole.mov") == joined.numbers, "the segments hold the unsplit recording's frames")
        #expect(try SegmentInspection.playedAudioSamples("\(folder)/whole.mov") == joined.samples.count)
    }

    /// Size segments never pass their size and use at least 90 % of it (all but the last), and still hold
    /// every picture once. The pictures are noisy so that 2 MB last under two seconds.
    @Test func sizeSegmentsStayUnderTheirSizeAndUseMostOfIt() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let noisy = TestInputs.numberedPictures(rate: "30") + ",scale=640:480:flags=neighbor,noise=alls=12:allf=t"
        let result = try Processes.reel(
            ["record", "size.mov", "--video", "lavfi:\(noisy)?realtime=0", "--audio", "lavfi:sine=frequency=440?realtime=0",
             "--preset", "640x480", "--max-duration", "12", "--segment-size", "2M", "--quiet", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let segments = try #require(try TestInputs.json(result.standardOutput)["segments"] as? [[String: Any]])
        #expect(segments.count >= 2)
        #expect(segments.first?["output"] as? String == "\(folder)/size-001.mov")
        for (position, segment) in segments.enumerated() {
            let path = segment["output"] as! String
            let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(bytes == segment["bytes"] as? Int)
            #expect(bytes <= 2_000_000, "\(path): \(bytes) bytes")
            if position < segments.count - 1 { #expect(bytes >= 1_800_000, "\(path) uses \(bytes) of 2,000,000 bytes") }
        }
        let frames = segments.map { $0["videoFrames"] as? Int ?? 0 }
        _ = try SegmentTests.checkJoined(segments, expectedFrames: frames)
        #expect(frames.reduce(0, +) == 360)
    }

    /// Detail that jumps (a flat picture, then heavy noise for 0.8 s of every 3) at a size near the smallest
    /// accepted: a burst is about as large as a segment, so the pictures inside the encoder when a cut is
    /// decided outgrow any estimate. They are kept and the segment says by how much it passed its size
    /// (before, the full segment refused them: over 9 s, 24 of 270 pictures lost, eight one-picture segments,
    /// exit 0). It ends outside a burst: inside one the preset's VBV cap drives x264 to its coarsest
    /// quantizer, where the last pictures can lose the 13-level steps that number them.
    @Test func sizeSegmentsNeverDropPicturesWhenDetailJumps() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bursts = TestInputs.numberedPictures(rate: "30")
            + ",scale=352:288:flags=neighbor,noise=alls=40:allf=t+u:enable='gt(mod(t\\,3)\\,2.2)'"
        let size = 210_000
        let result = try Processes.reel(
            ["record", "burst.mov", "--video", "lavfi:\(bursts)?realtime=0", "--audio", "lavfi:sine=frequency=440?realtime=0",
             "--preset", "352x288", "--max-duration", "8", "--segment-size", "\(size)", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let segments = try #require(try TestInputs.json(result.standardOutput)["segments"] as? [[String: Any]])
        #expect(segments.count >= 2)
        for segment in segments {
            let bytes = try #require(segment["bytes"] as? Int)
            #expect(segment["bytesOverSize"] as? Int == (bytes > size ? bytes - size : nil), "\(segment)")
            if bytes > size { #expect(result.standardError.contains("\(segment["output"] as! String) is "), "\(result.standardError)") }
        }
        #expect(segments.contains { $0["bytesOverSize"] != nil }, "the bursts should outgrow the estimate at least once")
        let frames = segments.map { $0["videoFrames"] as? Int ?? 0 }
        _ = try SegmentTests.checkJoined(segments, expectedFrames: frames)
        #expect(frames.reduce(0, +) == 240)
    }

    /// Without video the audio fills the files, and its size cuts them (before, nothing planned a cut without
    /// pictures: one 250 kB file for a 140 kB segment size). Every sample once, the tone unbroken.
    @Test func audioOnlySizeSegmentsStayUnderTheirSize() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = 140_000
        let result = try Processes.reel(
            ["record", "talk.mov", "--video", "none", "--audio", "lavfi:sine=frequency=440?realtime=0", "--preset", "352x288",
             "--max-duration", "20", "--segment-size", "\(size)", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let segments = try #require(try TestInputs.json(result.standardOutput)["segments"] as? [[String: Any]])
        #expect(segments.count == 3, "\(segments)")
        var samples: [Float] = []
        for (position, segment) in segments.enumerated() {
            let path = try #require(segment["output"] as? String)
            let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(bytes == segment["bytes"] as? Int && bytes <= size, "\(path): \(bytes) bytes")
            if position < segments.count - 1 { #expect(bytes >= size * 8 / 10, "\(path) uses \(bytes) of \(size) bytes") }
            #expect(try SegmentInspection.playedAudioSamples(path) == segment["audioSamples"] as? Int, "\(path)")
            samples += try SegmentInspection.playedMono(path, sampleRate: 48000)
        }
        #expect(segments.reduce(0) { $0 + ($1["audioSamples"] as? Int ?? 0) } == 960_000)
        let error = SegmentInspection.worstToneError(samples, frequency: SegmentTests.tone, sampleRate: 48000, skip: 0)
        #expect(error < 0.1, "the tone runs on across the joins (worst 5 ms error \(error) of its amplitude)")
    }

    /// A total size (--max-size) that runs out near a segment's end, whether inside the segment or at its cut:
    /// the recording ends there with the size limit, in the files it wrote. Before, a total that left too
    /// little for the next file's first picture listed a file of 0 bytes that was not on disk, and an error
    /// that the size limit was reached before the first picture fit.
    @Test(arguments: [180, 190, 200])
    func aTotalSizeEndingAtASegmentsCutListsOnlyItsFiles(percentOfTwoSegments: Int) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = 300_000, total = size * percentOfTwoSegments / 100
        let result = try Processes.reel(
            ["record", "cap.mov", "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30")),scale=352:288:flags=neighbor,noise=alls=12:allf=t?realtime=0",
             "--audio", "lavfi:sine=frequency=440?realtime=0", "--preset", "352x288", "--max-duration", "12",
             "--segment-size", "\(size)", "--max-size", "\(total)", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "maxFileSizeReached" && json["error"] == nil, "\(json)")
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.count == 2 && segments.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 }, "\(segments)")
        #expect(Scratch.files(in: folder).sorted() == ["cap-001.mov", "cap-002.mov"])
        #expect(segments.reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) } <= total)
        _ = try SegmentTests.checkJoined(segments, expectedFrames: segments.map { $0["videoFrames"] as? Int ?? 0 }, lastCutByLimit: true)
    }

    /// Loop recording by count: only the newest N finished segments stay; the result says which went.
    @Test func keepSegmentsDeletesTheOldest() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A file of the user's with a name like a segment's is never touched.
        _ = FileManager.default.createFile(atPath: "\(folder)/loop-000.mov", contents: Data("mine".utf8))
        let result = try Processes.reel(
            ["record", "loop.mov", "--video", "lavfi:testsrc2=size=160x120?realtime=0", "--audio", "lavfi:sine?realtime=0",
             "--preset", "low", "--max-duration", "5", "--segment-duration", "1", "--keep-segments", "2", "--json", "--quiet"],
            currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let segments = try #require(try TestInputs.json(result.standardOutput)["segments"] as? [[String: Any]])
        #expect(segments.map { $0["deleted"] as? Bool } == [true, true, true, false, false])
        #expect(Scratch.files(in: folder).sorted() == ["loop-000.mov", "loop-004.mov", "loop-005.mov"])
        #expect(try MediaInspection(path: "\(folder)/loop-005.mov").videoFrames == 15)
    }

    /// Loop recording by free space, on a 4 MiB tmpfs: a recording three times longer than the disk holds runs
    /// to its duration, deleting its own oldest segments as the floor nears; the newest stay and play, and
    /// free space never went under the floor.
    @Test func keepFreeLoopsOnASmallDisk() throws {
        guard let disk = try SmallFilesystem.mount(megabytes: 4, for: "keepFreeLoopsOnASmallDisk") else { return }
        defer { disk.unmount() }
        _ = FileManager.default.createFile(atPath: "\(disk.path)/keep-me.txt", contents: Data("not the recording's".utf8))
        let noisy = TestInputs.numberedPictures(rate: "30") + ",scale=640:480:flags=neighbor,noise=alls=12:allf=t"
        let result = try Processes.reel(
            ["record", "dash-{index}.mov", "--video", "lavfi:\(noisy)?realtime=0", "--audio", "lavfi:sine=frequency=440?realtime=0",
             "--preset", "640x480", "--max-duration", "50", "--segment-duration", "2", "--keep-free", "1Mi", "--quiet", "--json"],
            currentDirectory: disk.path)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "maxDurationReached")
        #expect(json["videoFrames"] as? Int == 1500)
        let total = json["bytes"] as? Int ?? 0
        #expect(total > 3 * 4 << 20, "recorded \(total) bytes, three times the disk")
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.count == 25)
        let kept = segments.filter { $0["deleted"] as? Bool == false }
        let deleted = segments.filter { $0["deleted"] as? Bool == true }
        // The oldest went, the newest stayed (in one run at the end).
        #expect(!deleted.isEmpty && deleted.map { $0["index"] as! Int } == Array(1...deleted.count), "\(segments.map { $0["deleted"] ?? "?" })")
        #expect(Scratch.files(in: disk.path) == (["keep-me.txt"] + kept.map { URL(fileURLWithPath: $0["output"] as! String).lastPathComponent }).sorted())
        _ = try SegmentTests.checkJoined(kept, expectedFrames: kept.map { $0["videoFrames"] as? Int ?? -1 })
        var info = statvfs()
        #expect(statvfs(disk.path, &info) == 0)
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        #expect(free >= 1 << 20, "free space \(free) stayed above the 1 MiB floor")
    }

    /// On a terminal the status line says which segment is being written.
    @Test func theStatusLineShowsTheSegment() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let command = "\(Processes.reelExecutable) record tty.mov --video lavfi:testsrc2=size=160x120 --audio none --preset low --max-duration 2.5 --segment-duration 1"
        let result = try Processes.shell("cd \(folder) && timeout -k 2 20 script -qec '\(command)' /dev/null", timeout: 30)
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("segment 2"), "status line: \(result.standardOutput.suffix(300))")
    }

    /// --max-size is the total of all segments: the recording stops before the files together would pass it.
    @Test func maxSizeIsTheTotalOfAllSegments() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let noisy = TestInputs.numberedPictures(rate: "30") + ",scale=640:480:flags=neighbor,noise=alls=12:allf=t"
        let result = try Processes.reel(
            ["record", "total.mov", "--video", "lavfi:\(noisy)?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "640x480",
             "--max-duration", "30", "--segment-duration", "2", "--max-size", "2M", "--json", "--quiet"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "maxFileSizeReached")
        let segments = try #require(json["segments"] as? [[String: Any]])
        let sizes = try segments.map { try FileManager.default.attributesOfItem(atPath: $0["output"] as! String)[.size] as! Int }
        let total = sizes.reduce(0, +)
        #expect(total <= 2_000_000 && total >= 1_700_000, "\(sizes) total \(total)")
        #expect(segments.dropLast().allSatisfy { $0["videoFrames"] as? Int == 60 }, "\(segments)")
        _ = try SegmentTests.checkJoined(segments, expectedFrames: segments.map { $0["videoFrames"] as? Int ?? 0 }, lastCutByLimit: true)
    }

    /// Killed (SIGKILL) in the middle of its third segment: the first two are complete movies, the third plays
    /// up to its last fragment, and nothing else is left.
    @Test func aKilledSegmentedRecordingKeepsWhatItWrote() throws {
        let folder = try Scratch.folder(), sockets = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder); try? FileManager.default.removeItem(atPath: sockets) }
        let running = try Processes.start(Processes.reelExecutable, [
            "record", "crash.mov", "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine=frequency=440",
            "--preset", "352x288", "--size", "64x64", "--segment-duration", "2", "--fragment-interval", "0.5", "--quiet",
            "--control", "\(sockets)/crash.sock"],
            currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/crash-003.mov", seconds: 20))
        usleep(1_300_000)
        // The pictures the session says it dropped so far (a paced source on an overloaded machine outruns it).
        let status = try? TestInputs.json(Processes.reel(["ctl", "\(sockets)/crash.sock", "status", "--json"], currentDirectory: folder,
                                                         timeout: 20).standardOutput)
        let dropped = ((status?["progress"] as? [String: Any])?["droppedFrames"] as? Int ?? 0) + (status?["droppedPictures"] as? Int ?? 0)
        kill(running.process.processIdentifier, SIGKILL)
        _ = Processes.finish(running, timeout: 10)
        #expect(Scratch.files(in: folder) == ["crash-001.mov", "crash-002.mov", "crash-003.mov"])
        for name in ["crash-001.mov", "crash-002.mov"] {
            let movie = try MediaInspection(path: "\(folder)/\(name)")
            let played = try SegmentInspection.playedAudioSamples("\(folder)/\(name)")
            #expect(movie.videoFrames == 60 && played == 96000, "\(name): \(movie.videoFrames) frames, \(played) samples")
        }
        let numbers = try (1...3).flatMap { try TestInputs.frameNumbers("\(folder)/crash-00\($0).mov") }
        #expect(numbers.count >= 120 + 15, "the third segment plays up to a fragment: \(numbers.count) frames in all")
        // Every picture once, in order, across the segments' joins. A picture the session dropped (said in its
        // status) is a gap it reported, not a loss at a join: then only the gaps are bounded, by what it said
        // plus half a second (the progress it reads is at most that old).
        let steps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        let missing = steps.filter { $0 > 1 }.map { $0 - 1 }.reduce(0, +), repeated = steps.filter { $0 == 0 }.count
        #expect((missing == 0 && repeated == 0) || (dropped > 0 && missing + repeated <= dropped + 15),
                "\(missing) pictures missing, \(repeated) repeated, \(dropped) dropped by the session before the kill: \(numbers)")
        #expect(try CleanDecode.problems(in: "\(folder)/crash-003.mov").isEmpty)
    }

    /// Without fragments a segment is not crash-safe while it is written: it stays under a hidden partial
    /// name until finalized; the finished ones are under their names.
    @Test func withoutFragmentsTheOpenSegmentIsHidden() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable, [
            "record", "plain.mov", "--video", "lavfi:testsrc2=size=160x120", "--audio", "none", "--preset", "low",
            "--segment-duration", "1", "--fragment-interval", "0", "--max-duration", "3", "--quiet"], currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/plain-001.mov", seconds: 20))
        usleep(400_000)
        let during = Scratch.files(in: folder)
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(during.contains("plain-001.mov") && during.contains { $0.hasPrefix(".plain-00") && $0.hasSuffix(".mov.partial") }
                && !during.contains { !$0.hasPrefix(".") && $0 != "plain-001.mov" && $0 != "plain-002.mov" }, "while recording: \(during)")
        #expect(Scratch.files(in: folder) == ["plain-001.mov", "plain-002.mov", "plain-003.mov"])
    }

    /// Mistakes with segments are usage errors (exit 2, one line, nothing written).
    @Test func segmentUsageErrors() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = FileManager.default.createFile(atPath: "\(folder)/taken-001.mov", contents: Data())
        let base = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "none", "--max-duration", "2"]
        let cases: [([String], String)] = [
            (["record", "a-{index}.mov"] + base, "only segmented recordings"),
            (["record", "a.mov", "--keep-segments", "3"] + base, "need segments"),
            (["record", "a.mov", "--segment-duration", "0.2"] + base, "--segment-duration"),
            (["record", "a.mov", "--segment-size", "10K"] + base, "too small"),
            (["record", "a.mov", "--segment-duration", "1", "--keep-free", "1G", "--min-free", "1G"] + base, "not both"),
            (["record", "taken.mov", "--segment-duration", "1"] + base, "already exists"),
            (["capture", "shot", "--segment-duration", "1"] + base, "unknown option"),
        ]
        for (arguments, message) in cases {
            let result = try Processes.reel(arguments, currentDirectory: folder)
            #expect(result.status == 2, "\(arguments): exit \(result.status) \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "one line: \(result.standardError)")
        }
        #expect(Scratch.files(in: folder) == ["taken-001.mov"])
    }

    /// A transcode splits too: a 5 s movie in 2 s segments is 60 + 60 + 30 frames.
    @Test func transcodeSplitsIntoSegments() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/in.mp4", seconds: 5)
        let result = try Processes.reel(["transcode", "in.mp4", "part.mov", "--preset", "352x288", "--segment-duration", "2", "--json", "--quiet"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.map { $0["videoFrames"] as? Int } == [60, 60, 30])
        #expect(json["stopReason"] as? String == "inputEnded")
        #expect(Scratch.files(in: folder).sorted() == ["in.mp4", "part-001.mov", "part-002.mov", "part-003.mov"])
    }
}
