import Foundation
import ReelTestSupport
import Testing

/// `reel trim --keyframes` (smart and exact trims: SmartTrimTests) on a Reel movie whose pictures carry their number (x264 with B-frames, a keyframe
/// every 2 s) and a 440 Hz tone: the groups around the span, copied packet for packet, the sound cut to the
/// sample; and the bad inputs, each one line, exit 2, nothing written.
@Suite(.serialized) struct TrimCommandTests {
    /// A 6 s movie with numbered pictures at 30 fps and a tone, in `folder`.
    static func source(in folder: String) throws -> String {
        let path = "\(folder)/source.mov"
        let result = try Processes.reel(["record", path, "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0",
                                         "--audio", "lavfi:sine=frequency=440?realtime=0", "--preset", "352x288", "--max-duration", "6", "--quiet"])
        #expect(result.status == 0, "\(result.standardError)")
        return path
    }

    /// The packets of one stream (payload hashes in decode order), by ffprobe.
    static func packetHashes(_ path: String, stream: String) throws -> [String] {
        let result = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=data_hash",
                                                             "-show_data_hash", "md5", "-of", "csv=p=0", path])
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func keyframeTrimCopiesTheGroupsAroundTheSpan() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.source(in: folder)
        let run = try Processes.reel(["trim", source, "\(folder)/cut.mov", "--from", "2.5", "--to", "4.5", "--keyframes", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        // The keyframes are at 0, 2 and 4 s: the span 2.5-4.5 takes the groups from 2 s to 6 s.
        #expect(json["start"] as? Double == 2 && json["end"] as? Double == 6 && json["videoFrames"] as? Int == 120, "\(json)")
        #expect(json["mode"] as? String == "keyframes" && (json["note"] as? String)?.contains("asked 2.5") == true, "\(json)")
        #expect(json["audioSamples"] as? Int == 192_000 && json["reencodedFrames"] as? Int == 0, "\(json)")
        let cut = "\(folder)/cut.mov"
        #expect(try TestInputs.frameNumbers(cut) == (60..<180).map { $0 % 256 })
        #expect(try SegmentInspection.playedAudioSamples(cut) == 192_000)
        // The sound is the source's from 2 s on, to the sample (a shift of one sample would be 0.06 of a 440 Hz tone).
        let original = try SegmentInspection.playedMono(source, sampleRate: 48_000), trimmed = try SegmentInspection.playedMono(cut, sampleRate: 48_000)
        let worst = zip(trimmed, original.dropFirst(96_000)).map { abs($0 - $1) }.max() ?? 1
        #expect(trimmed.count == 192_000 && worst < 0.005, "\(trimmed.count) samples, worst difference \(worst)")
        // Every picture's packet is the source's, byte for byte.
        #expect(try Self.packetHashes(cut, stream: "v") == Array(try Self.packetHashes(source, stream: "v")[60..<180]))
        #expect(try CleanDecode.problems(in: cut).isEmpty)
        let readers = try IndependentReaders.disagreements(cut, frames: 120, duration: 4)
        #expect(readers.isEmpty, "\(readers)")
        #expect(Scratch.files(in: folder) == ["cut.mov", "source.mov"])
    }

    @Test func aSpanFromTheStartAndTheWholeMovie() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.source(in: folder)
        let start = try Processes.reel(["trim", source, "\(folder)/start.mov", "--from", "0", "--duration", "1", "--keyframes", "--json"])
        #expect(start.status == 0, "\(start.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/start.mov") == Array(0..<60))
        #expect(try SegmentInspection.playedAudioSamples("\(folder)/start.mov") == 96_000)
        let whole = try Processes.reel(["trim", source, "\(folder)/whole.mov", "--from", "0", "--to", "100", "--keyframes", "--json"])
        #expect(whole.status == 0, "\(whole.standardError)")
        // Past the end: the movie's end, said in the note.
        let wholeJSON = try TestInputs.json(whole.standardOutput)
        #expect(wholeJSON["end"] as? Double == 6 && (wholeJSON["note"] as? String)?.contains("to 6 s (asked 100)") == true, "\(wholeJSON)")
        #expect(try Self.packetHashes("\(folder)/whole.mov", stream: "v") == Self.packetHashes(source, stream: "v"))
        #expect(try SegmentInspection.playedAudioSamples("\(folder)/whole.mov") == 288_000)
    }

    /// A portrait movie without sound: the rotation and colour tags carry over, and no sound track appears.
    @Test func keepsRotationAndColourWithoutSound() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Processes.reel(["record", "\(folder)/portrait.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                       "--preset", "352x288", "--max-duration", "5", "--orientation", "portrait", "--quiet"])
        #expect(made.status == 0)
        let run = try Processes.reel(["trim", "\(folder)/portrait.mov", "\(folder)/cut.mov", "--from", "1", "--to", "3", "--keyframes", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try TestInputs.json(run.standardOutput)["audioSamples"] == nil)
        let describe = { (path: String) throws -> String in
            try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,color_primaries,color_space:stream_side_data=rotation",
                                                   "-of", "compact", path]).standardOutput
        }
        let cut = try describe("\(folder)/cut.mov")
        #expect(cut == (try describe("\(folder)/portrait.mov")) && cut.contains("rotation=-90") && !cut.contains("audio"), "\(cut)")
    }

    /// An ffmpeg-made movie with two sound tracks: the video and the first sound are copied, the note says the other was left out.
    @Test func otherTracksAreLeftOutAndSaidSo() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi",
                                                          "-i", "sine=frequency=440", "-f", "lavfi", "-i", "sine=frequency=1000", "-t", "4",
                                                          "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-g", "25", "-c:a", "aac",
                                                          "\(folder)/two.mov"])
        #expect(made.status == 0, "\(made.standardError)")
        let run = try Processes.reel(["trim", "\(folder)/two.mov", "\(folder)/cut.mov", "--from", "1", "--to", "3", "--keyframes", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["note"] as? String == "1 other track of the input left out (only the video and the first sound are copied)", "\(json)")
        #expect(json["start"] as? Double == 1 && json["end"] as? Double == 3 && json["audioSamples"] as? Int == 88_200, "\(json)")
        let streams = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", "\(folder)/cut.mov"])
        #expect(streams.standardOutput.split(separator: "\n") == ["video", "audio"])
    }

    @Test(arguments: [
        (["--from", "3", "--to", "3", "--keyframes"], "is not before"),
        (["--from", "7", "--to", "8", "--keyframes"], "past the end"),
        (["--from", "1", "--to", "2", "--exact", "--keyframes"], "exclude each other"),
        (["--from", "1", "--to", "2", "--duration", "1", "--keyframes"], "not both"),
        (["--to", "2", "--keyframes"], "--from"),
    ])
    func badSpansAreOneLineAndExitTwo(_ testCase: ([String], String)) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.source(in: folder)
        let run = try Processes.reel(["trim", source, "\(folder)/out.mov"] + testCase.0)
        #expect(run.status == 2 && run.standardError.contains(testCase.1), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(Scratch.files(in: folder) == ["source.mov"])
    }

    @Test func badFilesAreOneLineAndExitTwo() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.source(in: folder)
        let sound = try Processes.reel(["record", "\(folder)/sound.mov", "--video", "none", "--audio", "lavfi:sine?realtime=0",
                                        "--max-duration", "2", "--quiet"])
        #expect(sound.status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: "\(folder)/damaged.mov"))
        _ = FileManager.default.createFile(atPath: "\(folder)/taken.mov", contents: Data("keep".utf8))
        // An input under the name the output is written under until it is complete.
        try FileManager.default.copyItem(atPath: source, toPath: "\(folder)/.hidden.mov.partial")
        let cases: [([String], String)] = [
            (["\(folder)/sound.mov", "\(folder)/a.mov"], "no video"),
            (["\(folder)/damaged.mov", "\(folder)/b.mov"], "damaged.mov"),
            ([source, source], "is the input"),
            ([source, "\(folder)/taken.mov"], "already exists"),
            ([source, "\(folder)/c.mp4"], ".mov"),
            (["\(folder)/missing.mov", "\(folder)/d.mov"], "cannot read"),
            (["\(folder)/.hidden.mov.partial", "\(folder)/hidden.mov"], "would overwrite the input file"),
        ]
        for (files, message) in cases {
            let run = try Processes.reel(["trim"] + files + ["--from", "1", "--to", "2", "--keyframes"])
            #expect(run.status == 2 && run.standardError.contains(message), "\(files): \(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        }
        #expect(Scratch.files(in: folder) == [".hidden.mov.partial", "damaged.mov", "sound.mov", "source.mov", "taken.mov"])
        #expect(FileManager.default.contentsEqual(atPath: "\(folder)/.hidden.mov.partial", andPath: source))
        #expect(try String(contentsOfFile: "\(folder)/taken.mov", encoding: .utf8) == "keep")
    }

    /// A trim job in a batch: the same movie as the command's, its result in the report; a re-run skips it.
    @Test func aTrimJobInABatch() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try Self.source(in: folder)
        try Data(#"{"jobs": [{"name": "part", "type": "trim", "input": "source.mov", "from": 2.5, "to": 4.5, "mode": "keyframes", "output": "out/{name}.mov"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/jobs.json"))
        let run = try Processes.reel(["batch", "jobs.json", "--json", "--quiet"], currentDirectory: folder)
        #expect(run.status == 0, "\(run.standardError)")
        let entry = try #require((try TestInputs.json(run.standardOutput)["jobs"] as? [[String: Any]])?.first)
        let trim = entry["trim"] as? [String: Any]
        #expect(entry["status"] as? String == "succeeded" && trim?["start"] as? Double == 2 && trim?["videoFrames"] as? Int == 120, "\(entry)")
        #expect(try TestInputs.frameNumbers("\(folder)/out/part.mov") == (60..<180).map { $0 % 256 })
        let again = try Processes.reel(["batch", "jobs.json", "--json", "--quiet"], currentDirectory: folder)
        #expect((try TestInputs.json(again.standardOutput)["jobs"] as? [[String: Any]])?.first?["status"] as? String == "skipped")
    }
}
