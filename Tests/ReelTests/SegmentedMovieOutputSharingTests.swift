import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 25: a MovieOutput in segments by duration takes its pictures from the encoder of its preset like any
/// other MovieOutput: it asks the encoder for each boundary's keyframe ahead, and a pause takes back those it
/// moved. The source's pictures carry their number; a picture two movies hold alike is the same packet in both.
@Suite struct SegmentedMovieOutputSharingTests {
    let sharing = MovieOutputSharingTests()

    /// Each file: its pictures' numbers and packets, and the sound it plays.
    func files(_ result: RecordingResult) throws -> [(numbers: [Int], packets: [(keyframe: Bool, hash: String)], samples: Int)] {
        try (result.segments ?? []).map { segment in
            (try TestInputs.frameNumbers(segment.output), try FFprobe.videoPackets(segment.output),
             try SegmentInspection.playedAudioSamples(segment.output))
        }
    }

    /// Unpaced inputs: a movie in 1 s segments, limited to 3.5 s, beside one file of 4 s, both added while the
    /// session runs. The segments hold exactly 30, 30, 30 and 15 pictures, each starting on a keyframe, with
    /// exactly their pictures' sound; the numbers run on across the files, and every picture is the other
    /// movie's packet: one encoder made both.
    @Test func segmentsOnUnpacedInputsAreExactAndShareTheEncoder() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try sharing.numberedInputs(paced: false)
        let session = CaptureSession()
        try session.start(inputs)
        let whole = MovieOutput(outputPath: "\(folder)/whole.mov", preset: preset, limits: RecordingLimits(maxDuration: 4))
        let parts = MovieOutput(outputPath: "\(folder)/part-{index}.mov", preset: preset, limits: RecordingLimits(maxDuration: 3.5),
                                segmentation: Segmentation(duration: 1))
        try session.addOutput(whole)
        try session.addOutput(parts)
        let wholeResult = try await whole.finished()
        let partsResult = try await parts.finished()
        session.stop()
        _ = await session.finished()
        #expect(wholeResult.recordedSuccessfully && wholeResult.videoFrames == 120, "\(wholeResult)")
        #expect(partsResult.recordedSuccessfully && partsResult.stopReason == .maxDurationReached && partsResult.videoFrames == 105,
                "\(partsResult)")
        let segments = try files(partsResult)
        #expect(segments.map(\.numbers.count) == [30, 30, 30, 15], "\(segments.map(\.numbers))")
        #expect(segments.map(\.samples) == [48_000, 48_000, 48_000, 24_000], "each file's sound is its pictures' length")
        #expect(segments.allSatisfy { $0.packets.first?.keyframe == true }, "each file starts on a keyframe")
        let numbers = segments.flatMap(\.numbers)
        #expect(sharing.contiguous(numbers), "no picture lost or repeated across the files: \(numbers)")
        let wholeNumbers = try TestInputs.frameNumbers("\(folder)/whole.mov")
        let wholePackets = try FFprobe.videoPackets("\(folder)/whole.mov")
        let byNumber = Dictionary(zip(wholeNumbers, wholePackets.map(\.hash)), uniquingKeysWith: { first, _ in first })
        let held = zip(numbers, segments.flatMap(\.packets)).filter { byNumber[$0.0] != nil }
        #expect(held.count >= 90 && held.allSatisfy { byNumber[$0.0] == $0.1.hash }, "one encoder: \(wholeNumbers) \(numbers)")
        for segment in partsResult.segments ?? [] {
            let decoding = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", segment.output, "-f", "null", "-"])
            #expect(decoding.status == 0 && decoding.standardError.isEmpty, "\(segment.output): \(decoding.standardError)")
        }
    }

    /// A live capture: the segmented movie pauses for a while and resumes. Its files still hold 30 pictures
    /// each (the last fewer) from a keyframe: the boundaries it had asked for past the pause were taken back and
    /// asked again where they fall after it, so the other movie gets no keyframe besides its encoder's grid (one
    /// each 2 s), the segments' boundaries and the pause's edges.
    @Test func aPausedSegmentedMovieMovesItsBoundaries() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try sharing.numberedInputs(paced: true)
        let session = CaptureSession()
        let whole = MovieOutput(outputPath: "\(folder)/whole.mov", preset: preset)
        let parts = MovieOutput(outputPath: "\(folder)/part-{index}.mov", preset: preset, segmentation: Segmentation(duration: 1))
        try session.addOutput(whole)
        try session.addOutput(parts)
        try session.start(inputs)
        try await sharing.waitForPictures(parts, atLeast: 40)
        parts.pause()
        let pausedAt = whole.progress?.videoFrames ?? 0
        try await sharing.waitForPictures(whole, atLeast: pausedAt + 45)
        parts.resume()
        let resumedAt = parts.progress?.videoFrames ?? 0
        try await sharing.waitForPictures(parts, atLeast: resumedAt + 90)
        session.stop()
        _ = await session.finished()
        let partsResult = try #require(parts.result)
        #expect(partsResult.recordedSuccessfully, "\(partsResult)")
        let segments = try files(partsResult)
        #expect(segments.count >= 3 && segments.dropLast().allSatisfy { $0.numbers.count == 30 }, "\(segments.map(\.numbers.count))")
        #expect(segments.allSatisfy { $0.packets.first?.keyframe == true }, "each file starts on a keyframe")
        #expect(segments.dropLast().allSatisfy { $0.samples == 48_000 }, "\(segments.map(\.samples))")
        let numbers = segments.flatMap(\.numbers)
        let jumps = numbers.indices.dropFirst().filter { (numbers[$0] - numbers[$0 - 1] + 256) % 256 > 1 }
        #expect(jumps.count == 1, "one pause: \(numbers)")
        let wholePackets = try FFprobe.videoPackets("\(folder)/whole.mov")
        let keyframes = wholePackets.filter(\.keyframe).count
        // The grid's, the boundaries' (one a second of the segmented movie) and the pause's and resume's.
        let allowed = wholePackets.count / 60 + 1 + numbers.count / 30 + 2
        #expect(keyframes <= allowed, "\(keyframes) keyframes in \(wholePackets.count) pictures, \(allowed) expected at most")
    }
}
