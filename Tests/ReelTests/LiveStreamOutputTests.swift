import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 26: live streams of a session that records no movie (`LiveStreamOutput`, what `reel serve`'s camera
/// streams): encoders of their own, the movie's loop without a file. Paced numbered pictures and a tone, so
/// the stream read back shows any picture or sample lost, repeated or moved.
@Suite struct LiveStreamOutputTests {
    static func inputs() throws -> CaptureInputs {
        var preset = try PresetLibrary.preset(named: "352x288")
        preset.video.width = 64
        preset.video.height = 64
        return CaptureInputs(video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
                             audio: try DeviceSpec(parsing: "lavfi:sine=frequency=440"), preset: preset)
    }

    @Test func streamsOfASessionWithoutAMovie() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inputs = try LiveStreamOutputTests.inputs()
        let session = CaptureSession()
        let live = LiveStreamOutput(preset: inputs.preset,
                                    streams: [LiveStream(folder: folder + "/hls", segmentDuration: 1, window: nil, partDuration: 0.25)])
        #expect(throws: ReelError.self, "not running yet") { try session.addOutput(live) }
        try session.start(inputs)
        try session.addOutput(live)
        #expect(throws: ReelError.self, "no stream at all") { try session.addOutput(LiveStreamOutput(preset: inputs.preset)) }
        Thread.sleep(forTimeInterval: 3.5)
        live.stop()
        let results = live.waitUntilFinished()
        #expect(session.currentState == .recording, "the session goes on after its streams end")
        session.stop()
        _ = session.waitUntilFinished()

        let result = try #require(results.first)
        #expect(result.kind == "hls" && result.error == nil && result.segments >= 2 && (result.parts ?? 0) >= 8, "\(result)")
        let check = HLSPlaylistCheck(try String(contentsOfFile: folder + "/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && check.isEnded, "\(check.problems)")
        #expect(abs(check.totalDuration - result.duration) < 1e-6)
        // Every picture from the first one streamed on, once and in order.
        let numbers = try TestInputs.frameNumbers(folder + "/hls/index.m3u8")
        #expect(numbers.count >= 60 && numbers == Array(numbers[0]..<(numbers[0] + numbers.count)), "\(numbers)")
        #expect(abs(Double(numbers.count) / 30 - check.totalDuration) < 1.0 / 30)
        // The sound: a tone without a break, as long as the pictures (within an AAC frame and its priming). At
        // the stop the sound, which the device delivers in blocks, is padded to the last picture's end (the
        // tracks end together): the last 0.1 s is left out of the tone's check.
        let samples = try TestInputs.monoSamples(folder + "/hls/index.m3u8", sampleRate: 48000)
        #expect(abs(Double(samples.count) / 48000 - check.totalDuration) < 2048.0 / 48000, "\(samples.count) samples")
        #expect(SegmentInspection.worstToneError(Array(samples.dropLast(4800)), frequency: 440, sampleRate: 48000, skip: 2048) < 0.1)
    }
}
