import Foundation
import ReelTestSupport
import Testing

/// What a recording leaves behind when the process dies: with fragments, a movie that plays up to its last
/// fragment, under the final name.
@Suite(.serialized) struct CrashSafetyTests {
    private static let liveSources = ["--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "low"]

    /// `reel record NAME` from live lavfi sources at the given fragment interval, in `folder`; returns once the
    /// recording has started (its file exists), so the timed signals that follow count from there on a slow
    /// machine too.
    private func startRecording(_ name: String, fragmentInterval: String, in folder: String) throws -> Processes.Running {
        let running = try Processes.start(Processes.reelExecutable,
                                          ["record", name, "--fragment-interval", fragmentInterval] + CrashSafetyTests.liveSources,
                                          currentDirectory: folder)
        // Without fragments the recording is written under a hidden temporary name until finalized.
        let writing = fragmentInterval == "0" ? ".\(name).partial" : name
        #expect(Processes.waitForFile("\(folder)/\(writing)"), "\(name): the recording did not start within 10 s")
        return running
    }

    /// ffmpeg decodes the whole file without a single error line.
    private func decodesCleanly(_ path: String) throws -> Bool {
        let problems = try CleanDecode.problems(in: path)
        if !problems.isEmpty { print("decoding \(path): \(problems)") }
        return problems.isEmpty
    }

    @Test func killedRecordingPlaysUpToItsLastFragment() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let interval = 1.0
        let running = try startRecording("crash.mov", fragmentInterval: "\(interval)", in: folder)
        let started = Date()
        usleep(4_500_000)
        kill(running.process.processIdentifier, SIGKILL)
        let killedAfter = Date().timeIntervalSince(started)
        _ = Processes.finish(running, timeout: 10)

        #expect(Scratch.files(in: folder) == ["crash.mov"], "the movie is written under its final name")
        let output = "\(folder)/crash.mov"
        #expect(try decodesCleanly(output))
        let movie = try MediaInspection(path: output)
        // Media began at most a second after launch (start-up); everything up to the last cut is kept.
        let startUpAllowance = 1.0
        #expect(movie.videoDuration >= killedAfter - interval - startUpAllowance,
                "\(movie.videoDuration) s kept of a recording killed after \(killedAfter) s")
        #expect(movie.audioCodec == "aac" && abs(movie.audioDuration - movie.videoDuration) < 0.1,
                "audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        // The source's 440 Hz tone, past AAC's start-up.
        let steady = Array(movie.audioPreview.dropFirst(movie.audioSampleRate / 10))
        let frequency = ToneAnalysis.frequency(of: steady, sampleRate: movie.audioSampleRate)
        #expect(abs(frequency - 440) < 5, "tone \(frequency) Hz")
    }

    /// Killed while nothing but the header is on disk: the file holds no media, and says so to ffprobe
    /// rather than looking like a movie.
    @Test func killBeforeTheFirstFragmentLeavesAnEmptyButWellFormedFile() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try startRecording("early.mov", fragmentInterval: "10", in: folder)
        usleep(2_000_000)
        kill(running.process.processIdentifier, SIGKILL)
        _ = Processes.finish(running, timeout: 10)
        let atoms = Atoms.topLevel(path: "\(folder)/early.mov").map(\.type)
        // The header, and the space reserved for completing it (edit lists, total duration) at the first fragment.
        #expect(atoms == ["ftyp", "moov", "free"], "\(atoms)")
    }

    /// A second Ctrl-C exits at once (130). With fragments the file is left as it is, which is always a valid
    /// movie: fragmented before finalization's switch, regular after it.
    @Test func secondInterruptLeavesAPlayableFile() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try startRecording("twice.mov", fragmentInterval: "1", in: folder)
        usleep(3_000_000)
        kill(running.process.processIdentifier, SIGINT)
        usleep(5_000)
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running, timeout: 10)
        #expect([0, 130].contains(result.status), "exit \(result.status): \(result.standardError)")
        let output = "\(folder)/twice.mov"
        #expect(try decodesCleanly(output))
        #expect(try MediaInspection(path: output).videoDuration >= 1)
    }

    /// Without fragments, a second Ctrl-C removes the unfinished temporary file and keeps nothing.
    @Test func secondInterruptWithoutFragmentsKeepsNothing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try startRecording("plain.mov", fragmentInterval: "0", in: folder)
        usleep(2_000_000)
        kill(running.process.processIdentifier, SIGINT)
        // Apart, so that they are two signals: two pending SIGINTs merge into one.
        usleep(5_000)
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running, timeout: 10)
        if result.status == 130 {
            #expect(Scratch.files(in: folder).isEmpty, "\(Scratch.files(in: folder))")
            #expect(result.standardError.contains("removed"))
        } else {
            // The first signal's finalization finished before the second arrived.
            let clean = try decodesCleanly("\(folder)/plain.mov")
            #expect(result.status == 0 && clean)
        }
    }
}
