import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 28: movies only around events. lavfi sources (as fast as the encoder: realtime=0) whose pictures
/// move, or whose sound plays, only between 4 and 6 s; each movie read back shows when its event happened.
@Suite struct TriggeredRecordingTests {
    /// Gray 160x90 pictures; between `from` and `to` a pattern moves across them.
    static func moving(from: Double, to: Double) -> String {
        "lavfi:color=gray:size=160x90:rate=30,geq=lum='if(between(T\\,\(from)\\,\(to))\\,128+60*sin(X/6+T*12)\\,128)':cb=128:cr=128?realtime=0"
    }

    static func record(_ folder: String, video: String?, audio: String?, rules: [TriggerRule], seconds: Double = 10) throws
        -> (RecordingResult, [String]) {
        var configuration = try FastRecording.configuration(
            folder + "/event-{index}.mov", limits: RecordingLimits(maxDuration: seconds),
            video: try video.map(DeviceSpec.init(parsing:)), audio: try audio.map(DeviceSpec.init(parsing:)))
        configuration.triggers = TriggeredRecording(rules: rules, preRoll: 1, postRoll: 1)
        let seen = Locked<[String]>([])
        let session = CaptureSession()
        try session.start(configuration) { event in
            switch event {
            case .triggerStarted(let trigger): seen.withLock { $0.append("started \(trigger.kind.rawValue)") }
            case .triggerEnded(let trigger): seen.withLock { $0.append("ended \(trigger.kind.rawValue)") }
            case .triggeredMovie(let movie): seen.withLock { $0.append("movie \(URL(fileURLWithPath: movie.path).lastPathComponent)") }
            default: break
            }
        }
        return (session.waitUntilFinished(), seen.withLock { $0 })
    }

    /// Per decoded picture (160x90 gray), whether the moving pattern is on its middle (the movie's preset may
    /// frame the picture with bars).
    static func patterned(_ path: String) throws -> [Bool] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-trigger-\(UUID().uuidString).y").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try TestInputs.ffmpeg(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "160x90", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        return stride(from: 0, to: bytes.count - 160 * 90 + 1, by: 160 * 90).map { start in
            (25..<65).contains { row in bytes[(start + row * 160 + 40)..<(start + row * 160 + 120)].contains { abs(Int($0) - 128) > 30 } }
        }
    }

    @Test func motionBetweenFourAndSixSecondsGivesOneMovieFromThreeToSeven() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (result, seen) = try TriggeredRecordingTests.record(folder, video: TriggeredRecordingTests.moving(from: 4, to: 6), audio: nil,
                                                                rules: [TriggerRule(kind: .motion)])
        #expect(seen == ["started motion", "ended motion", "movie event-001.mov"], "\(seen)")
        #expect(result.triggers?.count == 1)
        let movie = try #require(result.triggered?.first)
        #expect(result.triggered?.count == 1 && movie.error == nil, "\(result.triggered ?? [])")
        let event = try #require(movie.events.first)
        #expect(abs(event.start - 4) < 0.05 && abs((event.end ?? 0) - 6) < 0.05, "\(event)")
        // The pre-roll from a keyframe forced each second: 3 s; the post-roll to 7 s.
        #expect(abs(movie.start - 3) < 1e-6 && abs(movie.end - 7) < 0.1, "\(movie)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["event-001.mov"])
        // The file: from a keyframe, the pattern on from 1 s in to 3 s in.
        #expect(try LiveJoinTests.keyframeIndexes(movie.path).first == 0)
        let pictures = try TriggeredRecordingTests.patterned(movie.path)
        #expect(pictures.count == movie.videoFrames && abs(Double(pictures.count) / 30 - movie.seconds) < 1e-6)
        let first = try #require(pictures.firstIndex(of: true)), last = try #require(pictures.lastIndex(of: true))
        #expect(abs(first - 30) <= 1 && abs(last - 89) <= 1, "pattern on pictures \(first)-\(last) of \(pictures.count)")
    }

    @Test func soundBetweenFourAndSixSecondsGivesOneMovieFromThreeToSeven() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tone = "lavfi:aevalsrc='if(between(t\\,4\\,6)\\,0.5*sin(2*PI*440*t)\\,0)':s=48000?realtime=0"
        let (result, _) = try TriggeredRecordingTests.record(folder, video: "lavfi:testsrc2=size=160x90:rate=30?realtime=0", audio: tone,
                                                             rules: [TriggerRule(kind: .sound)])
        let movie = try #require(result.triggered?.first)
        #expect(result.triggered?.count == 1 && movie.error == nil, "\(result.triggered ?? [])")
        #expect(abs(movie.start - 3) < 1e-6 && abs(movie.end - 7) < 0.15, "\(movie)")
        // The tone from 1 s in to 3 s in, measured on the sound decoded by ffmpeg (20 ms windows).
        let samples = try TestInputs.monoSamples(movie.path, sampleRate: 48_000)
        let loud = stride(from: 0, to: samples.count - 960, by: 960).map { start in
            samples[start..<(start + 960)].map { $0 * $0 }.reduce(0, +) / 960 > 0.01
        }
        let first = try #require(loud.firstIndex(of: true)), last = try #require(loud.lastIndex(of: true))
        #expect(abs(Double(first) * 0.02 - 1) <= 0.04 && abs(Double(last + 1) * 0.02 - 3) <= 0.04, "tone at \(first)-\(last) (20 ms)")
        #expect(abs(Double(samples.count) / 48_000 - movie.seconds) < 0.03)
    }

    @Test func aFlickerAndShortBurstsGiveNoMovie() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The whole picture flashes bright for a third of a second, a pattern moves for 0.3 s, a click of sound.
        let video = "lavfi:color=gray:size=160x90:rate=30,geq=lum='if(between(T\\,2\\,2.33)\\,220\\,if(between(T\\,4\\,4.3)\\,128+60*sin(X/6+T*12)\\,128))':cb=128:cr=128?realtime=0"
        let audio = "lavfi:aevalsrc='if(between(t\\,5\\,5.2)\\,0.8*sin(2*PI*440*t)\\,0)':s=48000?realtime=0"
        let (result, seen) = try TriggeredRecordingTests.record(folder, video: video, audio: audio, rules: [TriggerRule(kind: .motion), TriggerRule(kind: .sound)],
                                                                seconds: 8)
        #expect(seen.isEmpty && (result.triggered ?? []).isEmpty, "\(seen)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
