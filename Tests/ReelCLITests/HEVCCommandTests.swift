import Foundation
import ReelTestSupport
import Testing

/// HEVC from the command line (issue 14): x265 says nothing on stderr, a killed fragmented recording plays up
/// to its last fragment in ffmpeg and GStreamer, and stills come out of an HEVC movie frame-exact.
@Suite(.serialized) struct HEVCCommandTests {
    @Test func killedHEVCRecordingPlaysUpToItsLastFragment() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try TestInputs.smallHEVCPreset(in: folder)
        let running = try Processes.start(Processes.reelExecutable,
                                          ["record", "crash.mov", "--fragment-interval", "1", "--preset", preset,
                                           "--video", "lavfi:testsrc2", "--audio", "lavfi:sine"], currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/crash.mov"), "the recording did not start within 10 s")
        let started = Date()
        usleep(3_500_000)
        kill(running.process.processIdentifier, SIGKILL)
        let killedAfter = Date().timeIntervalSince(started)
        let result = Processes.finish(running, timeout: 10)
        #expect(result.standardError.isEmpty, "x265 must not write to stderr: \(result.standardError)")

        let output = "\(folder)/crash.mov"
        #expect(Atoms.topLevel(path: output).map(\.type).contains("moof"), "a fragmented movie")
        let (codec, tag) = try TestInputs.videoCodecAndTag(output)
        #expect(codec == "hevc" && tag == "hvc1", "\(codec) tagged \(tag)")
        let problems = try CleanDecode.problems(in: output)
        #expect(problems.isEmpty, "ffmpeg: \(problems)")
        let movie = try MediaInspection(path: output)
        // Everything up to the last cut is kept: each complete fragment (a moof whose data is all in the file)
        // adds its second. (How many seconds x265 encodes before the kill depends on the machine's load, so
        // that is bounded only loosely: at least one fragment in 3.5 s.)
        let atoms = Atoms.topLevel(path: output)
        let fileSize = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64) ?? 0
        var end: Int64 = 0, complete = 0
        for atom in atoms {
            end += atom.size
            if atom.type == "mdat" && end <= fileSize && complete < atoms.filter({ $0.type == "moof" }).count { complete += 1 }
        }
        complete = min(complete, atoms.filter { $0.type == "moof" }.count)
        #expect(complete >= 1, "no complete fragment in \(killedAfter) s: \(atoms.map(\.type))")
        #expect(movie.videoDuration >= Double(complete) - 0.05, "\(movie.videoDuration) s kept of \(complete) complete 1 s fragments")
        #expect(abs(movie.audioDuration - movie.videoDuration) < 0.1, "audio \(movie.audioDuration) s, video \(movie.videoDuration) s")
        let gstreamer = try IndependentReaders.gstreamer(output)
        #expect(gstreamer.problems.isEmpty && abs(gstreamer.videoFrames - movie.videoFrames) <= 1,
                "GStreamer \(gstreamer) against \(movie.videoFrames) frames")
    }

    @Test func stillsFromAnHEVCMovie() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try TestInputs.smallHEVCPreset(in: folder)
        let record = try Processes.reel(["record", "m.mov", "--preset", preset, "--max-duration", "2", "--still", "first.jpg",
                                         "--video", "lavfi:testsrc2?realtime=0", "--audio", "none", "--json"],
                                        currentDirectory: folder)
        // With --json the result goes to stdout and nothing to stderr: x265 is as quiet as FFmpeg.
        #expect(record.status == 0 && record.standardError.isEmpty, "\(record.standardError)")
        let grab = try Processes.reel(["grab", "m.mov", "g.png", "--at", "1.5"], currentDirectory: folder)
        #expect(grab.status == 0 && grab.standardError.isEmpty, "\(grab.standardError)")
        // Frame 45 is shown from 1.5 s: the grab is that picture, not its neighbours.
        let grabbed = try PictureComparison.rgb("\(folder)/g.png")
        let movie = "\(folder)/m.mov"
        let right = PictureComparison.meanAbsoluteDifference(grabbed, try PictureComparison.rgb(movie, frame: 45))
        #expect(right < 1.0, "differs from frame 45 by \(right)")
        for neighbour in [44, 46] {
            let other = PictureComparison.meanAbsoluteDifference(grabbed, try PictureComparison.rgb(movie, frame: neighbour))
            #expect(other > right + 0.5, "frame \(neighbour) matches as well (\(other) vs \(right))")
        }
        // The first-frame still is the movie's first picture (at JPEG's quality).
        let first = PictureComparison.meanAbsoluteDifference(try PictureComparison.rgb("\(folder)/first.jpg"),
                                                             try PictureComparison.rgb(movie, frame: 0))
        #expect(first < 4, "the first-frame still differs from the movie's first picture by \(first)")
    }
}
