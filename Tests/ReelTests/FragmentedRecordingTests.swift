import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Crash-safe recording: fragments while recording, one regular sample table after a clean stop.
@Suite(.serialized) struct FragmentedRecordingTests {
    private func record(_ output: String, interval: Double, limits: RecordingLimits,
                        preset: String = "352x288") async throws -> RecordingResult {
        var configuration = try FastRecording.configuration(output, preset: preset, limits: limits)
        configuration.fragmentInterval = interval
        return try await FastRecording.record(configuration)
    }

    /// Packet table (stream, pts, dts, duration, size, flags) as ffprobe reads it, in a stable order.
    static func packets(_ path: String) throws -> [String] {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries",
                                                           "packet=stream_index,pts,dts,duration,size,flags", "-of", "csv", path])
        #expect(probe.status == 0, "\(probe.standardError)")
        return probe.standardOutput.split(separator: "\n").map(String.init).sorted()
    }

    /// The index is the one FFmpeg itself writes for these packets: remux with `ffmpeg -c copy` and compare
    /// the packet tables, then the moov box for box, except where the chunks are (one per track per fragment
    /// here, up to 1 MiB in a plain movie). Returns the packet table.
    @discardableResult
    static func expectIndexMatchesFFmpeg(_ output: String, folder: String) throws -> [String] {
        let remuxed = "\(folder)/remuxed.mov"
        // Reel's movie time scale is the audio's sample rate (exact edit lists); FFmpeg's muxer is told the same.
        let timescale = (try FFprobe.stream(output, type: "audio")?["sample_rate"] as? String).map { ["-movie_timescale", $0] } ?? []
        let copy = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", output, "-map", "0", "-c", "copy"] + timescale + [remuxed])
        #expect(copy.status == 0, "\(copy.standardError)")
        defer { unlink(remuxed) }
        let table = try Self.packets(output)
        let remuxedTable = try Self.packets(remuxed)
        #expect(table.count > 150 && table == remuxedTable)
        let chunking: Set<String> = ["trak/mdia/minf/stbl/stsc", "trak/mdia/minf/stbl/stco"]
        let ours = Atoms.movieBoxes(path: output).filter { !chunking.contains($0.path) }
        let ffmpegs = Atoms.movieBoxes(path: remuxed).filter { !chunking.contains($0.path) }
        #expect(ours.map(\.path) == ffmpegs.map(\.path))
        for (mine, theirs) in zip(ours, ffmpegs) where mine.bytes != theirs.bytes {
            Issue.record("\(mine.path) differs from FFmpeg's")
        }
        return table
    }

    @Test func cleanStopLeavesOneRegularIndexOverTheFragments() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/fragmented.mov"
        let result = try await record(output, interval: 1, limits: RecordingLimits(maxDuration: 5))
        #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached, "\(result.error ?? "")")
        #expect(result.fragments == 5, "5 s at one fragment per second")
        #expect(Scratch.files(in: folder) == ["fragmented.mov"])

        // Players see an ordinary movie: one top-level mdat spans the fragmented moov and every fragment (the
        // single write that switched the file), and the one moov at the end indexes the samples inside it.
        let atoms = Atoms.topLevel(path: output)
        #expect(atoms.map(\.type) == ["ftyp", "mdat", "moov"], "\(atoms.map(\.type))")
        #expect(atoms.reduce(0) { $0 + $1.size } == result.bytes)
        let finalization = try #require(result.finalizationBytes)
        #expect(finalization > 0 && finalization < result.bytes / 2, "finalization wrote \(finalization) of \(result.bytes) bytes")

        try Self.expectIndexMatchesFFmpeg(output, folder: folder)
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == 150 && movie.audioDuration > 4.98 && movie.audioDuration < 5.03)
        // A keyframe starts every fragment, at every whole second.
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                           "packet=pts_time,flags", "-of", "csv=p=0", output])
        let keyframeTimes = probe.standardOutput.split(separator: "\n").filter { $0.hasSuffix(",K_") }
            .compactMap { Double($0.split(separator: ",")[0]) }
        for second in 0 ..< 5 {
            #expect(keyframeTimes.contains { abs($0 - Double(second)) < 0.001 }, "no keyframe at \(second) s: \(keyframeTimes)")
        }
    }

    /// A fragment is held in memory until it is cut: past the memory limit it is cut early, at any picture,
    /// and the file still plays through (a fragment need not start with a keyframe).
    @Test func fragmentsAreCutEarlyAtTheMemoryLimit() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/capped.mov"
        var configuration = try FastRecording.configuration(output, limits: RecordingLimits(maxDuration: 5))
        configuration.fragmentMemoryLimit = 32 * 1024
        let result = try await FastRecording.record(configuration)
        #expect(result.recordedSuccessfully && (result.fragments ?? 0) >= 8, "\(result.fragments ?? 0) fragments")
        try Self.expectIndexMatchesFFmpeg(output, folder: folder)
        let problems = try CleanDecode.problems(in: output)
        #expect(problems.isEmpty, "\(problems)")
        #expect(try MediaInspection(path: output).videoFrames == 150)
    }

    @Test func maxSizeHoldsWithFragments() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/sized.mov"
        let limit: Int64 = 300_000
        let result = try await record(output, interval: 1, limits: RecordingLimits(maxDuration: 60, maxFileSize: limit))
        #expect(result.stopReason == .maxFileSizeReached && result.recordedSuccessfully)
        #expect(result.bytes <= limit && result.bytes > limit * 85 / 100, "\(result.bytes) bytes for a \(limit) limit")
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == result.videoFrames && movie.videoFrames > 60)
        #expect(abs(movie.audioDuration - movie.videoDuration) < 0.1)
    }

    @Test func intervalZeroWritesTheIndexOnlyAtTheEnd() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/plain.mov"
        let result = try await record(output, interval: 0, limits: RecordingLimits(maxDuration: 2))
        #expect(result.recordedSuccessfully && result.fragments == 0)
        #expect(Atoms.topLevel(path: output).map(\.type) == ["ftyp", "wide", "mdat", "moov"])
        #expect(try MediaInspection(path: output).videoFrames == 60)
    }

    @Test func rejectsAFragmentIntervalTooShortToBeUseful() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        await #expect(throws: ReelError.self) {
            _ = try await record("\(folder)/short.mov", interval: 0.1, limits: RecordingLimits(maxDuration: 1))
        }
        #expect(Scratch.files(in: folder).isEmpty)
    }

    /// A disk that fills up: the recording ends with `diskFull`, the file keeps the complete fragments and is
    /// finalized as a regular movie, and nothing else on the disk is touched.
    @Test func diskFullKeepsEveryCompleteFragmentAndFinalizes() async throws {
        guard let disk = try SmallFilesystem.mount(megabytes: 3, for: "the disk-full test") else { return }
        defer { disk.unmount() }
        let neighbour = "\(disk.path)/neighbour.bin"
        let neighbourBytes = Data((0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try neighbourBytes.write(to: URL(fileURLWithPath: neighbour))
        let output = "\(disk.path)/full.mov"
        // No min-free floor: the recording runs into the end of the disk.
        let result = try await record(output, interval: 1, limits: RecordingLimits(maxDuration: 120, minFreeDiskSpace: 0),
                                      preset: "640x480")
        #expect(result.stopReason == .diskFull, "\(result.stopReason): \(result.error ?? "")")
        #expect(result.recordedSuccessfully, "\(result.error ?? "")")
        let atoms = Atoms.topLevel(path: output)
        #expect(atoms.last?.type == "moov" && !atoms.contains { $0.type == "moof" }, "\(atoms.map(\.type))")
        let problems = try CleanDecode.problems(in: output)
        #expect(problems.isEmpty, "decoding: \(problems)")
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == result.videoFrames && movie.videoDuration >= 2, "\(movie.videoDuration) s kept")
        #expect(abs(movie.audioDuration - movie.videoDuration) < 0.1)
        let neighbourAfter = try Data(contentsOf: URL(fileURLWithPath: neighbour))
        #expect(neighbourAfter == neighbourBytes)
        #expect(Scratch.files(in: disk.path) == ["full.mov", "neighbour.bin"])
    }
}
