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
        var configuration = try FastRecording.configuration(
            folder + "/movie.mov", limits: RecordingLimits(maxDuration: 5),
            video: DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"), audio: DeviceSpec(parsing: "lavfi:sine"))
        configuration.preset.video.width = 64
        configuration.preset.video.height = 64
        let session = CaptureSession()
        let events = Locked<[String]>([])
        try session.start(configuration) { event in
            if case .liveConnection(let connection) = event { events.withLock { $0.append(connection.state.rawValue) } }
        }
        try await Task.sleep(for: .milliseconds(1500))
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

    @Test func aSessionWithoutAMovieTakesNoStream() throws {
        let session = CaptureSession()
        #expect { try session.addLiveStream(try LivePush(url: "srt://127.0.0.1:9")) } throws: {
            ($0 as? ReelError)?.message.contains("not recording") == true
        }
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
