import Foundation
import ReelTestSupport
import Testing

/// Issue 11: every kind of file Reel leaves is read alike by readers nobody here wrote. GStreamer (qtdemux,
/// a full decode) and MediaInfo must agree with ffprobe on the video frames and the duration, within one
/// frame, and print no error; Chromium must open it and agree on the duration. Issue 24 adds readers with
/// QuickTime code of their own: Firefox (plays it to the end), MPlayer's native mov demuxer, exiftool's
/// writer (a tag round trip), libquicktime and xine (see MoreIndependentReaders.swift and the files beside it).
@Suite struct IndependentReadersTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]
    static let frame = 1.0 / 30

    /// Commands run in one folder (which holds in.mp4 and small-hevc.json); every .mov they leave whose name
    /// starts with "out" is checked.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var commands: [[String]]
        init(name: String, arguments: [String]) { (self.name, self.commands) = (name, [arguments]) }
        init(name: String, commands: [[String]]) { (self.name, self.commands) = (name, commands) }
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
        // A movie Reel recorded (fragmented, then finalized), transcoded by Reel.
        Case(name: "transcoded Reel recording", commands: [
            ["record", "rec.mov", "--preset", "352x288", "--max-duration", "2", "--fragment-interval", "0.5"] + fast,
            ["transcode", "rec.mov", "out.mov", "--preset", "low"]]),
        // HEVC (issue 14); Chromium here opens an HEVC movie but has no decoder for its pictures, so it is
        // asked only what it is asked for every file, the duration.
        Case(name: "HEVC, fragmented then finalized", arguments: ["record", "out.mov", "--preset", "small-hevc.json",
                                                                  "--max-duration", "2", "--fragment-interval", "0.5"] + fast),
        Case(name: "HEVC, size-limited, no fragments", arguments: ["record", "out.mov", "--preset", "small-hevc.json",
                                                                   "--max-size", "80K", "--fragment-interval", "0"] + fast),
        // Segments (issue 15): every segment of a 3 s recording cut each second.
        Case(name: "segments", arguments: ["record", "out-{index}.mov", "--preset", "352x288", "--max-duration", "3",
                                           "--segment-duration", "1"] + fast),
        // Tiers (issue 14): the main movie and a tier at another preset from the same capture.
        Case(name: "tiers", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "2",
                                        "--tier", "low:out-tier.mov"] + fast),
        // Several sound inputs as tracks of their own (issue 29): every reader that lists tracks sees both.
        Case(name: "separate sound tracks", arguments: ["record", "out.mov", "--preset", "352x288", "--max-duration", "2",
                                                        "--audio-tracks", "separate", "--audio", "lavfi:sine=f=1000?realtime=0&name=Second"] + fast),
    ]

    @Test(arguments: cases)
    func readersAgree(_ testCase: Case) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60", "-f", "lavfi", "-i", "sine", "-t", "2",
                               "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "\(folder)/in.mp4"])
        _ = try TestInputs.smallHEVCPreset(in: folder)
        for command in testCase.commands {
            let result = try Processes.reel(command + ["--quiet"], currentDirectory: folder)
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.standardError)")
        }
        let movies = Scratch.files(in: folder).filter { $0.hasPrefix("out") && $0.hasSuffix(".mov") }.map { "\(folder)/\($0)" }
        #expect(movies.count == (testCase.name == "segments" ? 3 : testCase.name == "tiers" ? 2 : 1), "\(movies)")
        if testCase.name == "separate sound tracks" {
            #expect(try movies.map { try IndependentReaders.ffprobe($0).audioTracks } == [2])
        }
        try Self.expectAgreement(movies, label: testCase.name)
    }

    /// `reel record out.mov` from live (paced) sources, once its file is there.
    static func startLiveRecording(in folder: String) throws -> Processes.Running {
        let running = try Processes.start(Processes.reelExecutable, ["record", "out.mov", "--video", "lavfi:testsrc2",
                                                                     "--audio", "lavfi:sine", "--preset", "low", "--quiet"],
                                          currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/out.mov"))
        return running
    }

    /// A recording stopped by SIGINT from live (paced) sources.
    @Test func interruptedLiveRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startLiveRecording(in: folder)
        usleep(1_500_000)
        kill(running.process.processIdentifier, SIGINT)
        #expect(Processes.finish(running, timeout: 20).status == 0)
        try Self.expectAgreement("\(folder)/out.mov", label: "interrupted live")
    }

    /// A live recording paused by SIGUSR1 for about a second and resumed by the next one, then stopped by
    /// SIGINT: the paused time is cut out of both tracks.
    @Test func pausedLiveRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startLiveRecording(in: folder)
        let started = Date()
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGUSR1)
        let paused = Date()
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGUSR1)
        let pause = Date().timeIntervalSince(paused)
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGINT)
        let ran = Date().timeIntervalSince(started)
        #expect(Processes.finish(running, timeout: 20).status == 0)
        let recorded = try IndependentReaders.ffprobe("\(folder)/out.mov").duration
        // Bounded by what really passed (a busy machine sleeps longer): the pause is left out.
        #expect(recorded > 1.4 && recorded < ran - pause + 0.3, "\(recorded) s recorded of \(ran) s, \(pause) s paused")
        try Self.expectAgreement("\(folder)/out.mov", label: "paused live")
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
        var states: [String] = []
        for (name, end) in [("killed.mov", syncs[syncs.count - 3]), ("half.mov", syncs[syncs.count - 2])] {
            let path = "\(folder)/\(name)"
            try Data(WriteLog.apply(Array(operations[...end]))).write(to: URL(fileURLWithPath: path))
            // The states really are those: fragments and no switch; and for half, the index appended too.
            let boxes = Atoms.topLevel(path: path).map(\.type)
            #expect(boxes.contains("moof") && boxes.prefix(2) == ["ftyp", "moov"], "\(name): \(boxes)")
            #expect(boxes.filter { $0 == "moov" }.count == (name == "half.mov" ? 2 : 1), "\(name): \(boxes)")
            states.append(path)
        }
        // ffprobe and MediaInfo do not apply a fragmented file's audio edit list: they count AAC's priming
        // and the encoder's padding of its last frame (two frames of 1024 samples at most) into its length,
        // which GStreamer (from mehd) and a finalized movie do not.
        try Self.expectAgreement(states, durationAllowance: 2048.0 / 48000, fragmented: true, label: "write-log state")
    }

    static func expectAgreement(_ path: String, durationAllowance: Double = 0, label: String = "",
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectAgreement([path], durationAllowance: durationAllowance, label: label, sourceLocation: sourceLocation)
    }

    /// Every reader on every movie of `paths` (Firefox asked once for all of them): no problems, and the
    /// frames and the duration of ffprobe within one frame (Chromium: the duration only). A reader with
    /// problems is reported once, with them, and not compared. REEL_PRINT_READINGS=1 prints every reading and
    /// how long each reader took.
    ///
    /// `fragmented`: crash-left movies, whose frames are in movie fragments only. MPlayer's mov demuxer,
    /// libquicktime and exiftool's writer predate fragments and do not read them (0 samples; "Can't yet
    /// handle movie fragments when writing"), for FFmpeg's fragmented movies as for Reel's: they are not asked.
    static func expectAgreement(_ paths: [String], durationAllowance: Double = 0, fragmented: Bool = false, label: String = "",
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        // Firefox mostly waits (for its start, and its turn in the queue of every test's movies), so it reads
        // alongside the others. (xine, whose clock drops pictures decoded late, is kept out of that crowd.)
        let firefox = Background { try IndependentReaders.firefox(paths) }
        // (reader, reading, whether it counts frames, seconds it took) of each movie
        var readings: [[(String, IndependentReaders.Reading, Bool, Double)]] = []
        var references: [IndependentReaders.Reading] = []
        for path in paths {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let reference = try IndependentReaders.ffprobe(path)
            references.append(reference)
            let problems = try CleanDecode.problems(in: path)
            #expect(problems.isEmpty && reference.problems.isEmpty, "\(name): ffmpeg: \(problems) \(reference.problems)",
                    sourceLocation: sourceLocation)
            var movie: [(String, IndependentReaders.Reading, Bool, Double)] = []
            func read(_ reader: String, countsFrames: Bool = true, _ reading: () throws -> IndependentReaders.Reading) rethrows {
                let start = Date()
                let result = try reading()
                movie.append((reader, result, countsFrames, Date().timeIntervalSince(start)))
            }
            try read("GStreamer") { try IndependentReaders.gstreamer(path) }
            try read("MediaInfo") { try IndependentReaders.mediainfo(path) }
            try read("Chromium", countsFrames: false) { try IndependentReaders.chromium(path) }
            try read("xine") { try IndependentReaders.xine(path) }
            if !fragmented {
                try read("MPlayer") { try IndependentReaders.mplayer(path) }
                try read("exiftool") { try IndependentReaders.exiftoolRoundTrip(path) }
                try read("libquicktime") { try IndependentReaders.libquicktime(path) }
            }
            readings.append(movie)
        }
        let (firefoxReadings, firefoxSeconds) = try firefox.value()
        for (index, path) in paths.enumerated() {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let reference = references[index]
            let movie = readings[index] + [("Firefox", firefoxReadings[index], true, firefoxSeconds / Double(paths.count))]
            if ProcessInfo.processInfo.environment["REEL_PRINT_READINGS"] == "1" {
                print("readings of \(label.isEmpty ? "" : label + ", ")\(name): ffprobe \(reference)"
                      + movie.map { "\n  \($0.0) [\(String(format: "%.1f", $0.3)) s]: \($0.1)" }.joined())
            }
            for (reader, reading, countsFrames, _) in movie {
                guard reading.problems.isEmpty else {
                    Issue.record("\(name): \(reader): \(reading.problems)", sourceLocation: sourceLocation)
                    continue
                }
                if countsFrames {
                    #expect(abs(reading.videoFrames - reference.videoFrames) <= 1,
                            "\(name): \(reader) \(reading) against ffprobe \(reference)", sourceLocation: sourceLocation)
                }
                #expect(abs(reading.duration - reference.duration) <= frame + 0.002 + durationAllowance,
                        "\(name): \(reader) \(reading) against ffprobe \(reference)", sourceLocation: sourceLocation)
                if reading.audioTracks >= 0 {
                    #expect(reading.audioTracks == reference.audioTracks,
                            "\(name): \(reader) sees \(reading.audioTracks) sound tracks, ffprobe \(reference.audioTracks)", sourceLocation: sourceLocation)
                }
            }
        }
    }
}

/// Work on a thread of its own, waited for with `value()` (with the seconds it took).
final class Background<Value: Sendable>: @unchecked Sendable {
    private var result: Result<Value, Error>?
    private var seconds = 0.0
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> Value) {
        Thread {
            let start = Date()
            self.result = Result { try work() }
            self.seconds = Date().timeIntervalSince(start)
            self.done.signal()
        }.start()
    }

    func value() throws -> (Value, Double) {
        done.wait()
        done.signal()
        return (try result!.get(), seconds)
    }
}
