import Foundation
import ReelTestSupport
import Testing

/// Issue 11: every kind of file Reel leaves is read alike by readers nobody here wrote. GStreamer (qtdemux,
/// a full decode) and MediaInfo must agree with ffprobe on the video frames and the duration, within one
/// frame, and print no error; Chromium must open it and agree on the duration.
@Suite struct IndependentReadersTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]
    static let frame = 1.0 / 30

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var arguments: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "plain (no fragments), B-frames", arguments: ["record", "out.mov", "--preset", "720p", "--max-duration", "2",
                                                                 "--fragment-interval", "0"] + fast),
        Case(name: "fragmented, then finalized", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "3",
                                                             "--fragment-interval", "1"] + fast),
        Case(name: "size-limited, B-frames", arguments: ["record", "out.mov", "--preset", "720p", "--max-size", "700K"] + fast),
        Case(name: "size-limited, no fragments", arguments: ["record", "out.mov", "--preset", "720p", "--max-size", "700K",
                                                             "--fragment-interval", "0"] + fast),
        Case(name: "portrait", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "1",
                                           "--orientation", "portrait"] + fast),
        Case(name: "video only", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "1",
                                             "--video", "lavfi:testsrc2?realtime=0", "--audio", "none"]),
        Case(name: "audio only", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "1",
                                             "--video", "none", "--audio", "lavfi:sine?realtime=0"]),
        Case(name: "transcoded 60 fps", arguments: ["transcode", "in.mp4", "out.mov", "--preset", "352x288"]),
        // HEVC (issue 14); Chromium here opens an HEVC movie but has no decoder for its pictures, so it is
        // asked only what it is asked for every file, the duration.
        Case(name: "HEVC, fragmented then finalized", arguments: ["record", "out.mov", "--preset", "small-hevc.json",
                                                                  "--max-duration", "2", "--fragment-interval", "0.5"] + fast),
        Case(name: "HEVC, size-limited, no fragments", arguments: ["record", "out.mov", "--preset", "small-hevc.json",
                                                                   "--max-size", "80K", "--fragment-interval", "0"] + fast),
    ]

    @Test(arguments: cases)
    func readersAgree(_ testCase: Case) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60", "-f", "lavfi", "-i", "sine", "-t", "2",
                               "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "\(folder)/in.mp4"])
        _ = try TestInputs.smallHEVCPreset(in: folder)
        let result = try Processes.reel(testCase.arguments + ["--quiet"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        try Self.expectAgreement("\(folder)/out.mov")
    }

    /// A recording stopped by SIGINT from live (paced) sources.
    @Test func interruptedLiveRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable, ["record", "out.mov", "--video", "lavfi:testsrc2",
                                                                     "--audio", "lavfi:sine", "--preset", "low", "--quiet"],
                                          currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/out.mov"))
        usleep(1_500_000)
        kill(running.process.processIdentifier, SIGINT)
        #expect(Processes.finish(running, timeout: 20).status == 0)
        try Self.expectAgreement("\(folder)/out.mov")
    }

    /// The states a kill leaves: after the last fragment (a crash-left, fragmented movie), and half-way
    /// through finalization (the complete index appended, not yet switched), from a real recording's write log.
    @Test func killedAndHalfFinalizedFiles() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/take.mov"
        let (result, operations) = try WriteLog.reel([
            "record", movie, "--preset", "352x288", "--max-duration", "3", "--fragment-interval", "1", "--quiet"] + Self.fast,
            writing: movie, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let syncs = operations.indices.filter { operations[$0].isSync }
        try #require(syncs.count >= 3)
        // Killed: everything up to the sync before finalization; half-finalized: up to the index's sync.
        for (name, end) in [("killed.mov", syncs[syncs.count - 3]), ("half.mov", syncs[syncs.count - 2])] {
            let path = "\(folder)/\(name)"
            try Data(WriteLog.apply(Array(operations[...end]))).write(to: URL(fileURLWithPath: path))
            // The states really are those: fragments and no switch; and for half, the index appended too.
            let boxes = Atoms.topLevel(path: path).map(\.type)
            #expect(boxes.contains("moof") && boxes.prefix(2) == ["ftyp", "moov"], "\(name): \(boxes)")
            #expect(boxes.filter { $0 == "moov" }.count == (name == "half.mov" ? 2 : 1), "\(name): \(boxes)")
            // ffprobe and MediaInfo do not apply a fragmented file's audio edit list: they count AAC's priming
            // and the encoder's padding of its last frame (two frames of 1024 samples at most) into its length,
            // which GStreamer (from mehd) and a finalized movie do not.
            try Self.expectAgreement(path, durationAllowance: 2048.0 / 48000)
        }
    }

    static func expectAgreement(_ path: String, durationAllowance: Double = 0,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try IndependentReaders.ffprobe(path)
        let problems = try CleanDecode.problems(in: path)
        #expect(problems.isEmpty && reference.problems.isEmpty, "ffmpeg: \(problems) \(reference.problems)", sourceLocation: sourceLocation)
        let gstreamer = try IndependentReaders.gstreamer(path)
        let mediainfo = try IndependentReaders.mediainfo(path)
        for (reader, reading) in [("GStreamer", gstreamer), ("MediaInfo", mediainfo)] {
            #expect(reading.problems.isEmpty, "\(reader): \(reading.problems)", sourceLocation: sourceLocation)
            #expect(abs(reading.videoFrames - reference.videoFrames) <= 1,
                    "\(reader) \(reading) against ffprobe \(reference)", sourceLocation: sourceLocation)
            #expect(abs(reading.duration - reference.duration) <= frame + 0.002 + durationAllowance,
                    "\(reader) \(reading) against ffprobe \(reference)", sourceLocation: sourceLocation)
        }
        let chromium = try IndependentReaders.chromium(path)
        #expect(chromium.problems.isEmpty, "\(chromium.problems)", sourceLocation: sourceLocation)
        #expect(abs(chromium.duration - reference.duration) <= frame + 0.002 + durationAllowance,
                "Chromium \(chromium) against ffprobe \(reference)", sourceLocation: sourceLocation)
    }
}
