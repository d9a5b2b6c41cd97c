import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 26: a live stream added to a recording session while it runs (`CaptureSession.addLiveStream`)
/// joins the movie at its next picture, which the movie makes a keyframe; an SRT listener started by the test
/// receives the movie's pictures from there to the end.
@Suite struct LiveJoinTests {
    @Test func aPushAddedWhileRecordingStartsAtAKeyframeAndRunsToTheEnd() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listener = try SRTListener(output: folder + "/joined.ts")
        // Paced numbered pictures: the push joins about a second and a half in, between two of the GOP's
        // keyframes (every 2 s).
        let configuration = try ReplayBufferTests.configuration(folder + "/movie.mov", seconds: 5)
        let session = CaptureSession()
        let events = Locked<[String]>([])
        try session.start(configuration) { event in
            if case .liveConnection(let connection) = event { events.withLock { $0.append(connection.state.rawValue) } }
        }
        try await LiveJoinTests.waitForTimeline(session, seconds: 1.5)
        try session.addLiveStream(try LivePush(url: listener.url))
        #expect(throws: ReelError.self, "the same server twice") { try session.addLiveStream(try LivePush(url: listener.url)) }
        let result = await session.finished()
        listener.finish()
        #expect(result.recordedSuccessfully, "\(result.error ?? "")")
        let live = try #require(result.live?.last)
        #expect(live.kind == "srt" && live.error == nil && live.bytes > 0 && live.reconnects == 0, "\(live)")
        #expect(events.withLock { $0 }.contains("connected"))
        // The stream is the movie's pictures from the join to the end, starting with a keyframe the movie made
        // for it (not one of its GOP's, which fall every 60 pictures).
        let movie = try TestInputs.frameNumbers(folder + "/movie.mov")
        let joined = try TestInputs.frameNumbers(folder + "/joined.ts")
        #expect(movie.count == 150 && joined.count >= 60 && joined.count <= 120, "\(joined.count) of \(movie.count)")
        #expect(Array(movie.suffix(joined.count)) == joined, "the stream runs to the movie's end")
        let start = movie.count - joined.count
        let keyframes = try LiveJoinTests.keyframeIndexes(folder + "/movie.mov")
        #expect(keyframes.contains(start) && start % 60 != 0, "keyframes \(keyframes), joined at \(start)")
        #expect(try SegmentInspection.startsWithKeyframe(folder + "/joined.ts"))
    }

    /// An HLS folder added while the movie records: it starts at the next picture (a keyframe) and cuts its
    /// segments on the movie's grid (multiples of 2 s from the movie's start, where the movie now forces
    /// keyframes): the first is short, the others exact; its pictures are the movie's from the join on.
    @Test func anHLSFolderAddedWhileRecordingCutsOnTheMoviesGrid() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try ReplayBufferTests.configuration(folder + "/movie.mov", seconds: 7)
        configuration.preset.video.keyframeInterval = 250  // the grid's keyframes are the movie's forced ones, not its GOP's
        let session = CaptureSession()
        try session.start(configuration)
        try await LiveJoinTests.waitForTimeline(session, seconds: 1.3)
        let stream = LiveStream(folder: folder + "/hls", segmentDuration: 2, window: nil)
        try session.addLiveStream(stream)
        #expect(throws: ReelError.self, "the same folder twice") { try session.addLiveStream(stream) }
        #expect(throws: ReelError.self, "another segment length") {
            try session.addLiveStream(LiveStream(folder: folder + "/other", segmentDuration: 3, window: nil))
        }
        let result = await session.finished()
        #expect(result.recordedSuccessfully, "\(result.error ?? "")")
        let live = try #require(result.live?.first)
        #expect(live.kind == "hls" && live.error == nil && live.droppedPackets == 0, "\(live)")
        let check = HLSPlaylistCheck(try String(contentsOfFile: folder + "/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && check.isEnded, "\(check.problems)")
        let pictures = check.entries.map { Int(($0.duration * 30).rounded()) }
        #expect(pictures.count >= 3 && pictures[0] < 60 && pictures.dropFirst().dropLast().allSatisfy { $0 == 60 }, "\(pictures)")
        let movie = try TestInputs.frameNumbers(folder + "/movie.mov")
        let streamed = try TestInputs.frameNumbers(folder + "/hls/index.m3u8")
        #expect(movie.count == 210 && Array(movie.suffix(streamed.count)) == streamed, "\(streamed.count) of \(movie.count)")
        // The segments' first pictures are at the movie's multiples of 2 s (60 pictures), keyframes it forced.
        let start = movie.count - streamed.count
        let keyframes = try LiveJoinTests.keyframeIndexes(folder + "/movie.mov")
        #expect(keyframes.contains(start) && [60, 120, 180].allSatisfy { keyframes.contains($0) || $0 < start }, "keyframes \(keyframes), joined at \(start)")
        #expect(start + pictures[0] == ((start / 60) + 1) * 60, "the first segment ends on the grid")
    }

    /// A segmented movie with sound takes a stream while it records: the stream gets the movie's own AAC
    /// packets, which run on across the movie's files (one encoder for all of them), so its sound is the tone
    /// unbroken across the joins the movie's files have at 2 and 3 s.
    @Test func aSegmentedMovieTakesAStreamWhileRecording() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try ReplayBufferTests.configuration(folder + "/part-{index}.mov", seconds: 4)
        configuration.segmentation = Segmentation(duration: 1)
        let session = CaptureSession()
        try session.start(configuration)
        try await LiveJoinTests.waitForTimeline(session, seconds: 1.3)
        try session.addLiveStream(LiveStream(folder: folder + "/hls", segmentDuration: 1, window: nil))
        let result = await session.finished()
        #expect(result.recordedSuccessfully && result.segments?.count == 4, "\(result.error ?? "") \(result.segments?.count ?? 0) files")
        let live = try #require(result.live?.first)
        #expect(live.kind == "hls" && live.error == nil && live.droppedPackets == 0, "\(live)")
        var movie: [Int] = []
        for segment in result.segments ?? [] { movie += try TestInputs.frameNumbers(segment.output) }
        let streamed = try TestInputs.frameNumbers(folder + "/hls/index.m3u8")
        #expect(movie.count == 120 && streamed.count >= 45 && Array(movie.suffix(streamed.count)) == streamed,
                "\(streamed.count) of \(movie.count)")
        // (ffmpeg decodes the last AAC frame whole, past its short duration: that padding is left out.)
        let sound = try TestInputs.monoSamples(folder + "/hls/index.m3u8", sampleRate: 48000).dropLast(1024)
        #expect(Double(sound.count) > Double(streamed.count) / 30 * 48000 - 2048, "\(sound.count) samples")
        #expect(SegmentInspection.worstToneError(Array(sound), frequency: 440, sampleRate: 48000, skip: 2048) < 0.1)
    }

    @Test func aSessionWithoutAMovieTakesNoStream() throws {
        let session = CaptureSession()
        #expect { try session.addLiveStream(try LivePush(url: "srt://127.0.0.1:9")) } throws: {
            ($0 as? ReelError)?.message.contains("not recording") == true
        }
    }

    /// Waits until the session's timeline is `seconds` in (a busy machine may take a while to open the inputs).
    static func waitForTimeline(_ session: CaptureSession, seconds: Double) async throws {
        for _ in 0..<600 {
            let status = session.status
            if let now = status.timeline, now >= seconds { return }
            if status.state == .finished {
                Issue.record("the session finished before its timeline reached \(seconds) s (this task was not run for that long)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the session's timeline did not reach \(seconds) s within 30 s")
    }

    /// The picture numbers (in presentation order) that are keyframes.
    static func keyframeIndexes(_ path: String) throws -> [Int] {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,flags",
                                                           "-of", "csv=p=0", path])
        let packets = probe.standardOutput.split(separator: "\n").compactMap { line -> (Int, Bool)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Int(fields[0]) else { return nil }
            return (pts, fields[1].contains("K"))
        }.sorted { $0.0 < $1.0 }
        return packets.enumerated().filter { $0.element.1 }.map(\.offset)
    }
}
