import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 26: `reel record --live DIR` writes HLS beside the movie from the movie's own packets. The pictures
/// carry their number and the sound is a pure tone, so the stream read back shows whether any picture or
/// sample was lost, repeated or moved; ffmpeg, GStreamer's hlsdemux2 and Chromium's native HLS play it.
@Suite struct LiveStreamTests {
    static let sources = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0",
                          "--audio", "lavfi:sine=frequency=440?realtime=0", "--preset", "352x288", "--size", "64x64",
                          "--quiet", "--json"]

    /// The playlist as Apple's rules want it, each segment alone (init + segment) a keyframe first and as
    /// many pictures as its EXTINF says; returns the check.
    static func checkStream(_ folder: String, segmentPictures: [Int], ended: Bool = true) throws -> HLSPlaylistCheck {
        let text = try String(contentsOfFile: "\(folder)/index.m3u8", encoding: .utf8)
        let check = HLSPlaylistCheck(text)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.isEnded == ended)
        #expect(check.entries.map { Int(($0.duration * 30).rounded()) } == segmentPictures)
        #expect(check.entries.allSatisfy { abs($0.duration * 30 - ($0.duration * 30).rounded()) < 1e-4 }, "EXTINFs are exact to the picture")
        #expect(check.entries.allSatisfy { $0.programDateTime != nil })
        let initSegment = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/init.mp4"))
        for (index, entry) in check.entries.enumerated() {
            let alone = "\(folder)/../alone-\(index).mp4"
            defer { try? FileManager.default.removeItem(atPath: alone) }
            try (initSegment + Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(entry.uri)"))).write(to: URL(fileURLWithPath: alone))
            #expect(try SegmentInspection.startsWithKeyframe(alone), "\(entry.uri) starts with a keyframe")
            #expect(try MediaInspection(path: alone).videoFrames == segmentPictures[index], "\(entry.uri) alone")
            // Its sound starts with its pictures (within an AAC frame): a player may start at any segment.
            let video = Double(try FFprobe.stream(alone, type: "video")?["start_time"] as? String ?? "") ?? -1
            let audio = Double(try FFprobe.stream(alone, type: "audio")?["start_time"] as? String ?? "") ?? -100
            #expect(abs(audio - video) <= 1024.0 / 48000 + 1e-6, "\(entry.uri): audio starts at \(audio), video at \(video)")
        }
        return check
    }

    @Test func hlsHoldsTheMoviesPicturesAndSound() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "10", "--live", "hls", "--live-segment", "2",
                                         "--live-keep", "all"] + LiveStreamTests.sources, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let live = try #require((json["live"] as? [[String: Any]])?.first)
        #expect(live["kind"] as? String == "hls" && live["segments"] as? Int == 5 && live["listedSegments"] as? Int == 5)
        #expect(live["droppedPackets"] as? Int == 0 && live["gaps"] as? Int == 0 && live["error"] == nil)
        #expect(live["playlist"] as? String == "hls/index.m3u8")
        let check = try LiveStreamTests.checkStream("\(folder)/hls", segmentPictures: [60, 60, 60, 60, 60])
        #expect(check.isEvent && check.targetDuration == 2)
        // The EXTINFs add up to the movie, whose pictures the stream holds in order, each once.
        #expect(abs(check.totalDuration - (json["duration"] as? Double ?? 0)) < 1.0 / 30)
        let movieNumbers = try TestInputs.frameNumbers("\(folder)/movie.mov")
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == movieNumbers)
        #expect(movieNumbers.count == 300)
        // The sound: the movie's samples after AAC's one priming frame (played before the first picture), the
        // tone running on across the segments.
        let movieSamples = try SegmentInspection.playedMono("\(folder)/movie.mov", sampleRate: 48000)
        let streamSamples = try TestInputs.monoSamples("\(folder)/hls/index.m3u8", sampleRate: 48000)
        #expect(streamSamples.count >= movieSamples.count + 1024 && streamSamples.count <= movieSamples.count + 2048,
                "\(streamSamples.count) samples against the movie's \(movieSamples.count)")
        let played = Array(streamSamples.dropFirst(1024).prefix(movieSamples.count))
        #expect(zip(played, movieSamples).allSatisfy { abs($0 - $1) < 1e-4 }, "the stream's sound is the movie's, sample for sample")
        #expect(SegmentInspection.worstToneError(played, frequency: 440, sampleRate: 48000, skip: 2048) < 0.1)
        // Players as viewers have them, over HTTP.
        let gstreamer = try IndependentReaders.gstreamerHLS("\(folder)/hls/index.m3u8")
        #expect(gstreamer.videoFrames == 300 && gstreamer.problems.isEmpty, "\(gstreamer)")
        #expect(gstreamer.firstPictureTime.map { abs($0 - 10) < 1e-6 } == true, "the stream starts 10 s in: \(gstreamer)")
        let chromium = try IndependentReaders.chromiumHLS("\(folder)/hls/index.m3u8")
        #expect(chromium.problems.isEmpty && abs(chromium.duration - 10) < 0.05 && chromium.videoFrames == 300, "\(chromium)")
    }

    /// A live window lists the newest six segments and deletes those out of it for as long as it lasts; the
    /// movie's own segments (files of 4 s) restart their timelines, the stream's does not.
    @Test func slidingWindowBesideASegmentedMovie() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "part-{index}.mov", "--max-duration", "20", "--segment-duration", "4",
                                         "--live", "hls", "--live-segment", "1"] + LiveStreamTests.sources, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let live = try #require((json["live"] as? [[String: Any]])?.first)
        #expect(live["segments"] as? Int == 20 && live["listedSegments"] as? Int == 6)
        let check = try LiveStreamTests.checkStream("\(folder)/hls", segmentPictures: Array(repeating: 30, count: 6))
        #expect(check.mediaSequence == 14 && !check.isEvent && check.targetDuration == 1)
        let files = Scratch.files(in: "\(folder)/hls").filter { $0.hasSuffix(".m4s") }.sorted()
        #expect(files.count == 12, "the window and as many out of it are kept: \(files)")
        #expect(!files.contains("segment7.m4s") && files.contains("segment8.m4s"))
        // The last six seconds decode to the movie's last 180 pictures; the sound runs on across the movie's joins.
        let segments = try #require(json["segments"] as? [[String: Any]])
        var numbers: [Int] = []
        for segment in segments { numbers += try TestInputs.frameNumbers(segment["output"] as! String) }
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == Array(numbers.suffix(180)))
        // (ffmpeg decodes the last AAC frame whole, past its short duration: that padding is left out.)
        let sound = try TestInputs.monoSamples("\(folder)/hls/index.m3u8", sampleRate: 48000).dropLast(1024)
        #expect(sound.count > 6 * 48000 - 2048, "\(sound.count) samples")
        #expect(SegmentInspection.worstToneError(Array(sound), frequency: 440, sampleRate: 48000, skip: 2048) < 0.1)
    }

    /// With a tier, each movie streams into a variant folder and DIR/index.m3u8 is the multivariant playlist:
    /// its CODECS, RESOLUTION, FRAME-RATE and bandwidths as measured; the variants' segments line up, so a
    /// player can switch at any of them; Chromium plays the multivariant playlist.
    @Test func tiersMakeAMultivariantStream() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "main.mov", "--tier", "352x288:small.mov", "--max-duration", "6", "--live", "hls",
                                         "--live-segment", "2"] + LiveStreamTests.sources, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let outputs = try #require(json["outputs"] as? [[String: Any]])
        #expect(outputs.map { ($0["live"] as? [[String: Any]])?.first?["playlist"] as? String } == ["hls/352x288/index.m3u8", "hls/352x288-2/index.m3u8"])
        let main = try LiveStreamTests.checkStream("\(folder)/hls/352x288", segmentPictures: [60, 60, 60])
        // (Both presets are named 352x288: the tier's folder gets -2.)
        let low = try LiveStreamTests.checkStream("\(folder)/hls/352x288-2", segmentPictures: [60, 60, 60])
        #expect(main.entries.map(\.duration) == low.entries.map(\.duration))
        let text = try String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.prefix(3) == ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"])
        let variants = lines.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }
        #expect(variants.count == 2 && lines.contains("352x288/index.m3u8") && lines.contains("352x288-2/index.m3u8"), "\(text)")
        #expect(variants.allSatisfy { $0.contains("CODECS=\"avc1.") && $0.contains(",mp4a.40.2\"") && $0.contains("FRAME-RATE=30.000") })
        #expect(variants.contains { $0.contains("RESOLUTION=64x64") } && variants.contains { $0.contains("RESOLUTION=352x288") }, "\(text)")
        // The measured average stays under the peak the playlist declares.
        for variant in variants {
            let fields = Dictionary(variant.dropFirst("#EXT-X-STREAM-INF:".count).split(separator: ",").compactMap { pair -> (String, Int)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? Int(parts[1]).map { (String(parts[0]), $0) } : nil
            }, uniquingKeysWith: { first, _ in first })
            #expect((fields["AVERAGE-BANDWIDTH"] ?? .max) <= (fields["BANDWIDTH"] ?? 0), "\(variant)")
        }
        let chromium = try IndependentReaders.chromiumHLS("\(folder)/hls/index.m3u8")
        #expect(chromium.problems.isEmpty && abs(chromium.duration - 6) < 0.05 && chromium.videoFrames == 180, "\(chromium)")
    }

    /// A live folder that fills up (a 1 MiB tmpfs) stops the stream, at once and with a line saying so; the
    /// movie, on another disk, records on to its end with every picture. What the stream wrote stays
    /// readable: the last playlist in place names only whole segments.
    @Test func aFullLiveFolderStopsTheStreamNotTheMovie() throws {
        guard let small = try SmallFilesystem.mount(megabytes: 1, for: "aFullLiveFolderStopsTheStreamNotTheMovie") else { return }
        defer { small.unmount() }
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "30", "--live", "\(small.path)/hls",
                                         "--live-segment", "2", "--live-keep", "all", "--video", "lavfi:testsrc2?realtime=0",
                                         "--audio", "lavfi:sine?realtime=0", "--preset", "352x288", "--quiet", "--json"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 900 && json["recordedSuccessfully"] as? Bool == true)
        #expect(try MediaInspection(path: "\(folder)/movie.mov").videoFrames == 900)
        let live = try #require((json["live"] as? [[String: Any]])?.first)
        let error = live["error"] as? String ?? ""
        #expect(error.contains("No space left on device"), "\(live)")
        let written = live["segments"] as? Int ?? 0
        #expect(written > 0 && written < 15, "\(live)")
        #expect(result.standardError.contains("reel: warning: live stream \(small.path)/hls/index.m3u8 stopped:") && result.standardError.contains("the movie records on"),
                "\(result.standardError)")
        let check = HLSPlaylistCheck(try String(contentsOfFile: "\(small.path)/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && !check.isEnded && check.entries.count == written, "\(check.problems)")
        // (Not ended, the playlist is live to ffmpeg, which would wait for more: its segments are read as one file.)
        var joined = try Data(contentsOf: URL(fileURLWithPath: "\(small.path)/hls/init.mp4"))
        for entry in check.entries { joined += try Data(contentsOf: URL(fileURLWithPath: "\(small.path)/hls/\(entry.uri)")) }
        try joined.write(to: URL(fileURLWithPath: "\(folder)/joined.mp4"))
        #expect(try MediaInspection(path: "\(folder)/joined.mp4").videoFrames == written * 60)
        #expect(!Scratch.files(in: "\(small.path)/hls").contains { $0.hasSuffix(".partial") }, "no hidden file is left behind")
    }

    /// `capture` (tap = photo, hold = video) streams the press too: a hold's stream is its movie's pictures.
    @Test func aHeldCaptureStreams() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["capture", "hold", "--max-duration", "3", "--live", "hls", "--live-segment", "1"]
                                        + LiveStreamTests.sources, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        _ = try LiveStreamTests.checkStream("\(folder)/hls", segmentPictures: [30, 30, 30])
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == TestInputs.frameNumbers("\(folder)/hold.mov"))
    }

    /// Bad live options and folders are one clear line (exit 2) with nothing written: no movie, no folder.
    @Test func badLiveStreamsWriteNothing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = FileManager.default.createFile(atPath: "\(folder)/file", contents: Data())
        try FileManager.default.createDirectory(atPath: "\(folder)/old", withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: "\(folder)/old/index.m3u8", contents: Data("#EXTM3U\n".utf8))
        try FileManager.default.createDirectory(atPath: "\(folder)/leftover", withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: "\(folder)/leftover/.segment3.m4s.partial", contents: Data())
        let cases: [([String], String)] = [
            (["--live", "file"], "is a file, not a folder"),
            (["--live", "missing/hls"], "does not exist"),
            (["--live", "old"], "already exists (an earlier live stream)"),
            (["--live", "http://127.0.0.1/live"], "Reel pushes to srt:// and rtmp:// servers"),
            (["--live", "a", "--live", "a/"], "given twice"),
            (["--live", "a", "--live-keep", "3"], "--live-keep"),
            (["--live", "a", "--live-segment", "0.5"], "--live-segment"),
            (["--live-segment", "2"], "add --live DIR"),
            (["--live", "out.mov"], "is the name of an output of this recording"),
            (["--live", "leftover"], "already exists (an earlier live stream)"),
        ]
        for (options, message) in cases {
            let result = try Processes.reel(["record", "out.mov", "--max-duration", "1"] + options + LiveStreamTests.sources,
                                            currentDirectory: folder)
            #expect(result.status == 2, "\(options): exit \(result.status) \(result.standardError)")
            #expect(result.standardError.contains(message), "\(options): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(options): one line: \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.mov") && !FileManager.default.fileExists(atPath: "\(folder)/a"))
        }
        #expect(try String(contentsOfFile: "\(folder)/old/index.m3u8", encoding: .utf8) == "#EXTM3U\n")
        // An input among the names a stream writes is never overwritten, --overwrite or not.
        let input = try Processes.reel(["record", "out.mov", "--max-duration", "1", "--live", "old", "--overwrite",
                                        "--video", "file:old/index.m3u8", "--audio", "none", "--quiet"], currentDirectory: folder)
        #expect(input.status == 2 && input.standardError.contains("would overwrite the input file"), "\(input.standardError)")
        #expect(try String(contentsOfFile: "\(folder)/old/index.m3u8", encoding: .utf8) == "#EXTM3U\n")
        // Overwriting replaces the earlier stream's files only.
        _ = FileManager.default.createFile(atPath: "\(folder)/old/segment99.m4s", contents: Data())
        _ = FileManager.default.createFile(atPath: "\(folder)/old/notes.txt", contents: Data())
        let again = try Processes.reel(["record", "out.mov", "--max-duration", "1", "--live", "old", "--overwrite"] + LiveStreamTests.sources,
                                       currentDirectory: folder)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/old/segment99.m4s") && FileManager.default.fileExists(atPath: "\(folder)/old/notes.txt"))
        #expect(HLSPlaylistCheck(try String(contentsOfFile: "\(folder)/old/index.m3u8", encoding: .utf8)).entries.count == 1)
    }

    /// A live capture: while it records, every playlist a reader finds is whole and names only whole
    /// segments (each written under a hidden name and renamed into place); a pause (SIGUSR1) stops the
    /// segments and the timeline goes on without a hole; the stop ends the playlist. Paced, so the machine's
    /// load only changes how many segments there are, never what they hold.
    @Test func aLiveRecordingPublishesWholeFilesAsItGoes() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine=frequency=440",
                       "--preset", "352x288", "--size", "64x64", "--quiet", "--json"]
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--live", "hls", "--live-segment", "1",
                                                                    "--live-keep", "all", "--max-duration", "30"] + sources,
                                          currentDirectory: folder)
        var readings: [HLSPlaylistCheck] = []
        let deadline = Date().addingTimeInterval(60)
        var paused = false
        while Date() < deadline {
            if let text = try? String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8) {
                let check = HLSPlaylistCheck(text)
                #expect(check.problems.isEmpty && !check.isEnded, "mid-way: \(check.problems)")
                if let last = check.entries.last, readings.last?.entries.count != check.entries.count {
                    // The newest segment named is whole: it decodes (with the init segment) to its pictures.
                    let alone = "\(folder)/newest.mp4"
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/hls/init.mp4"))
                        + Data(contentsOf: URL(fileURLWithPath: "\(folder)/hls/\(last.uri)"))
                    try bytes.write(to: URL(fileURLWithPath: alone))
                    #expect(try MediaInspection(path: alone).videoFrames == Int((last.duration * 30).rounded()), "\(last.uri) is whole")
                    readings.append(check)
                }
                if check.entries.count >= 2 && !paused {
                    kill(running.process.processIdentifier, SIGUSR1)
                    paused = true
                    Thread.sleep(forTimeInterval: 3)
                    kill(running.process.processIdentifier, SIGUSR1)
                }
                if check.entries.count >= 4 { break }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(readings.count >= 2, "the playlist grew while recording: \(readings.map(\.entries.count))")
        let check = HLSPlaylistCheck(try String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && check.isEnded, "\(check.problems)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(abs(check.totalDuration - (json["duration"] as? Double ?? 0)) < 1.0 / 30, "the EXTINFs add up to the movie")
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == TestInputs.frameNumbers("\(folder)/movie.mov"))
        // Paused for 3 s (however late a busy machine delivers either signal, far more than the 1 s margin): the program dates jump by that much more than the media between them.
        let dates = check.entries.compactMap { $0.programDateTime.flatMap(LiveStreamTests.milliseconds) }
        let jumps = zip(dates, dates.dropFirst()).map { Double($1 - $0) / 1000 }
        #expect(jumps.contains { $0 > 1.0 + 1.0 } || !paused, "a pause shows in the program dates: \(jumps)")
    }

    /// Milliseconds since 1970 of "YYYY-MM-DDThh:mm:ss.fffZ".
    static func milliseconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
