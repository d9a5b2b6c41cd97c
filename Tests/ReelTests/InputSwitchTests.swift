import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 16: switching a running session's inputs. Sources told apart by colour (video) and pitch (audio)
/// replace each other while recording; the movie has one picture per frame interval throughout, each from
/// the source that was live then, and its audio changes pitch at the switch without a gap.
@Suite struct InputSwitchTests {
    static func preset() throws -> Preset {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        return preset
    }

    @Test func videoAndAudioSwitchWithoutAHole() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/switch.mov", video: try DeviceSpec(parsing: "lavfi:color=red"),
            audio: try DeviceSpec(parsing: "lavfi:sine=frequency=440"), preset: try Self.preset(), fragmentInterval: 0)
        let session = CaptureSession()
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(1000))
        try session.switchVideo(to: try DeviceSpec(parsing: "lavfi:color=blue"))
        try session.switchAudio(to: try DeviceSpec(parsing: "lavfi:sine=frequency=1000:sample_rate=44100"))
        #expect(session.status.video == "lavfi:color=blue" && session.status.audio?.contains("1000") == true, "\(session.status)")
        try await Task.sleep(for: .milliseconds(1000))
        try session.switchVideo(to: nil)
        try await Task.sleep(for: .milliseconds(700))
        try session.switchVideo(to: try DeviceSpec(parsing: "lavfi:color=red"))
        try await Task.sleep(for: .milliseconds(700))
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.droppedFrames == 0, "\(result)")
        let path = "\(folder)/switch.mov"
        let runs = try SourceColours.runs(path)
        #expect(runs.map(\.name) == ["red", "blue", "black", "red"], "\(runs)")
        // About 1 s, 1 s, 0.7 s, 0.7 s at 30 fps.
        let counts = runs.map(\.count)
        #expect(counts.count == 4 && abs(counts[0] - 30) <= 6 && abs(counts[1] - 30) <= 6 && abs(counts[2] - 21) <= 6, "\(counts)")
        // One picture per frame interval: no hole and no timestamp jump anywhere.
        let packets = try TestInputs.videoPacketTimes(path)
        #expect(packets.count == result.videoFrames)
        for (index, packet) in packets.enumerated() { #expect(abs(packet.time - Double(index) / 30) < 1e-4, "packet \(index) at \(packet.time)") }
        // The pitch changes once, near the video's first switch, and the sound never drops out.
        let movie = try MediaInspection(path: path)
        // Audio and video end within a frame of each other (the audio the edit list plays: decoding also
        // yields the last AAC frame's padding).
        let played = Double(try SegmentInspection.playedAudioSamples(path)) / 48000
        if RealTimeChecks.make("the tracks of a live recording stopped under a sanitizer's slowdown end within a frame") {
            #expect(abs(played - movie.videoDuration) <= 1.0 / 30 + 1e-3, "audio \(played) s, video \(movie.videoDuration) s")
        }
        let switchTime = Double(counts[0]) / 30
        let samples = try TestInputs.monoSamples(path, sampleRate: 48000)
        let before = Array(samples[Int((switchTime - 0.5) * 48000)..<Int((switchTime - 0.1) * 48000)])
        // The sound is switched right after the pictures, each opening its device: under a sanitizer's slowdown
        // that can take longer than 0.1 s, so the new pitch is measured later there (it lasts to the end).
        let settled = RealTimeChecks.make("the new sound within 0.1 s of the new pictures") ? 0.1 : 0.6
        let after = Array(samples[Int((switchTime + settled) * 48000)..<Int((switchTime + settled + 0.4) * 48000)])
        #expect(abs(ToneAnalysis.frequency(of: before, sampleRate: 48000) - 440) < 10)
        #expect(abs(ToneAnalysis.frequency(of: after, sampleRate: 48000) - 1000) < 10)
        // No gap over one AAC frame (1024 samples, 21 ms) around the switch: the longest stretch where the tone
        // is near zero (it is, for a fraction of a millisecond, at each zero crossing).
        let around = Array(samples[Int((switchTime - 0.3) * 48000)..<Int((switchTime + 0.3) * 48000)])
        var longestQuiet = 0, quiet = 0
        for sample in around {
            quiet = abs(sample) < 0.02 ? quiet + 1 : 0
            longestQuiet = max(longestQuiet, quiet)
        }
        #expect(longestQuiet < 1024, "a gap of \(longestQuiet) samples around the switch")
    }

    @Test func aSwitchThatFailsLeavesTheRecordingOnTheOldInput() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/kept.mov", video: try DeviceSpec(parsing: "lavfi:color=red"), audio: nil,
            preset: try Self.preset(), limits: RecordingLimits(maxDuration: 2), fragmentInterval: 0)
        let session = CaptureSession()
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(500))
        #expect(throws: ReelError.self) { try session.switchVideo(to: try DeviceSpec(parsing: "v4l2:/dev/video-nonexistent")) }
        #expect(throws: ReelError.self) { try session.switchAudio(to: try DeviceSpec(parsing: "lavfi:sine")) }
        #expect(throws: ReelError.self) { try session.switchVideo(to: try DeviceSpec(parsing: "lavfi:color=blue?realtime=0")) }
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.videoFrames == 60, "\(result)")
        #expect(try SourceColours.runs("\(folder)/kept.mov").map(\.name) == ["red"])
    }
}
