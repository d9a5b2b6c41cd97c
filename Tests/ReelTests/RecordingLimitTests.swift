import Foundation
@testable import Reel
import ReelTestSupport
import Testing

@Suite(.serialized) struct RecordingLimitTests {
    @Test(arguments: [2.0, 1.01, 0.5])
    func maxDurationHoldsToWithinOneFrame(seconds: Double) async throws {
        // No track runs past the limit: video keeps the frames that end by it (1.01 s at 30 fps: 30 frames).
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/d.mov"
        let result = try await FastRecording.record(
            FastRecording.configuration(output, limits: RecordingLimits(maxDuration: seconds)))
        #expect(result.stopReason == .maxDurationReached && result.recordedSuccessfully)
        let movie = try MediaInspection(path: output)
        let frame = 1.0 / 30
        #expect(movie.videoDuration <= seconds + 1e-6 && movie.videoDuration > seconds - frame, "video \(movie.videoDuration)")
        // The container's audio track length (AAC decoders pad the last frame, so decoded samples overcount).
        let audio = try #require(try FFprobe.stream(output, type: "audio"))
        let audioDuration = try #require(Double(audio["duration"] as? String ?? ""))
        #expect(audioDuration <= seconds + 1e-3, "audio must not run past the limit: \(audioDuration)")
        #expect(audioDuration > seconds - frame, "audio \(audioDuration)")
        #expect(movie.audioDuration < seconds + 1024.0 / 48000, "decoded audio: \(movie.audioDuration)")
        #expect(abs(result.duration - max(movie.videoDuration, audioDuration)) < 1e-3, "\(result.duration)")
    }

    // The smallest limits each tier accepts (ten estimated keyframes), and larger ones.
    @Test(arguments: [("352x288", Int64(51_000)), ("352x288", 150_000), ("720p", 461_000), ("720p", 2_000_000), ("1080p", 1_037_000)])
    func maxSizeIsNeverExceededAndMostlyUsed(preset: String, limit: Int64) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/s.mov"
        let result = try await FastRecording.record(
            FastRecording.configuration(output, preset: preset, limits: RecordingLimits(maxFileSize: limit)))
        #expect(result.stopReason == .maxFileSizeReached && result.recordedSuccessfully)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64)
        #expect(size == result.bytes)
        #expect(size <= limit, "file \(size) over the limit \(limit)")
        #expect(Double(size) >= 0.9 * Double(limit), "file \(size) uses under 90 % of \(limit)")
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == result.videoFrames && movie.videoFrames > 0)
    }

    @Test func trailerEstimateIsNeverBelowTheRealIndex() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hevc = try TestInputs.smallHEVCPreset(in: folder)
        for (preset, seconds) in [("352x288", 3.0), ("720p", 1.0), ("low", 4.0), (hevc, 3.0)] {
            let output = "\(folder)/\(URL(fileURLWithPath: preset).lastPathComponent).mov"
            _ = try await FastRecording.record(
                FastRecording.configuration(output, preset: preset, limits: RecordingLimits(maxDuration: seconds)))
            let moov = try #require(Atoms.topLevel(path: output).first { $0.type == "moov" })
            // The size check in MovieWriter used a bound of the same index; replay the file's packets into
            // the estimator to compare.
            let bound = try TrailerReplay.bound(for: output)
            #expect(bound >= moov.size, "\(preset): bound \(bound) below the real moov \(moov.size)")
            #expect(bound - moov.size < 512, "\(preset): bound \(bound) is loose against \(moov.size)")
        }
    }

    @Test func minFreeFloorStopsBeforeTheDiskFallsBelowIt() async throws {
        guard let disk = try SmallFilesystem.mount(megabytes: 72, for: "the min-free test") else { return }
        defer { disk.unmount() }
        let mountPoint = disk.path
        let floor: Int64 = 64 * 1024 * 1024
        let output = "\(mountPoint)/floor.mov"
        let result = try await FastRecording.record(
            FastRecording.configuration(output, preset: "720p", limits: RecordingLimits(maxDuration: 120, minFreeDiskSpace: floor)))
        #expect(result.stopReason == .diskSpaceLimitReached && result.recordedSuccessfully)
        let free = try #require(DiskSpace.availableBytes(atFolder: mountPoint))
        #expect(free >= floor, "free space \(free) fell below the floor")
        #expect(free - floor < 3_000_000, "stopped too early: \(free - floor) bytes above the floor")
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == result.videoFrames && movie.videoFrames > 30)
    }

    @Test func limitsThatCannotBeMetAreRejectedBeforeWriting() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/never.mov"
        let free = try #require(DiskSpace.availableBytes(atFolder: folder))
        for limits in [RecordingLimits(minFreeDiskSpace: free + 1_000_000_000), RecordingLimits(maxFileSize: 1000),
                       RecordingLimits(maxDuration: -1)] {
            do {
                _ = try await FastRecording.record(FastRecording.configuration(output, limits: limits))
                Issue.record("accepted \(limits)")
            } catch let error as ReelError {
                #expect(error.isInvalidInput)
            }
            #expect(Scratch.files(in: folder).isEmpty, "nothing may be written")
        }
    }
}
