import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Every preset tier records the right picture size, rate, codecs (H.264 or HEVC, tagged avc1 or hvc1) and
/// container, verified by decoding.
@Suite(.serialized) struct RecordingTierTests {
    @Test(arguments: PresetLibrary.builtInNames)
    func tierProducesTheRightMovie(presetName: String) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/\(presetName).mov"
        let preset = try PresetLibrary.preset(named: presetName)
        let result = try await FastRecording.record(
            FastRecording.configuration(output, preset: presetName, limits: RecordingLimits(maxDuration: 1)))
        #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached)
        #expect(result.preset == presetName)

        let movie = try MediaInspection(path: output)
        #expect(movie.majorBrand == "qt  ", "QuickTime brand")
        #expect(movie.videoCodec == preset.video.codec.rawValue && movie.audioCodec == "aac")
        #expect(movie.width == preset.video.width && movie.height == preset.video.height)
        #expect(abs(movie.frameRate - preset.video.fps) < 0.01)
        #expect(movie.videoFrames == Int(preset.video.fps), "one second of frames")
        #expect(movie.audioSampleRate == preset.audio.sampleRate && movie.audioChannels == preset.audio.channels)
        #expect(abs(movie.audioDuration - 1) < 0.03)
        #expect(result.videoFrames == movie.videoFrames)
        // ffprobe, as an independent reader, agrees.
        let video = try #require(try FFprobe.stream(output, type: "video"))
        #expect(video["codec_name"] as? String == preset.video.codec.rawValue)
        #expect(video["codec_tag_string"] as? String == (preset.video.codec == .hevc ? "hvc1" : "avc1"))
        #expect(video["width"] as? Int == preset.video.width && video["height"] as? Int == preset.video.height)
        // The preset's profile is a ceiling: x264 signals the lowest profile its tools need (ultrafast uses
        // no CABAC, so it writes Constrained Baseline even under "high").
        // HEVC presets are Main, and x265 writes Main.
        let rank = ["Constrained Baseline": 0, "Baseline": 0, "Main": 1, "High": 2]
        let written = try #require(rank[video["profile"] as? String ?? ""], "profile \(video["profile"] ?? "none")")
        #expect(written <= rank[preset.video.profile.capitalized]!)
    }
}
