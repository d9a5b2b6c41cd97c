import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 28: the replay buffer. Paced numbered pictures (64x64, a keyframe every 2 s) and a tone, so a saved
/// replay read back shows any picture missing, repeated or moved against the movie recorded beside it.
@Suite struct ReplayBufferTests {
    static func configuration(_ output: String, seconds: Double) throws -> RecordingConfiguration {
        var configuration = try FastRecording.configuration(
            output, limits: RecordingLimits(maxDuration: seconds),
            video: DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"), audio: DeviceSpec(parsing: "lavfi:sine=frequency=440"))
        configuration.preset.video.width = 64
        configuration.preset.video.height = 64
        return configuration
    }

    static func waitForTimeline(_ session: CaptureSession, seconds: Double) {
        for _ in 0..<600 where (session.status.timeline ?? 0) < seconds && session.currentState == .recording {
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// ffprobe: a save's sound starts with its first picture (the priming is trimmed by the edit list) and
    /// ends with its last (within an AAC frame).
    static func checkSound(_ save: ReplaySave) throws {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                           "stream=start_time,duration", "-of", "csv=p=0", save.path])
        let fields = probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Double($0) }
        #expect(fields.count == 2 && abs(fields[0]) < 1e-6, "sound: \(probe.standardOutput)")
        #expect(fields.count == 2 && abs(fields[1] - save.seconds) < 0.03, "\(fields) s of sound for \(save.seconds) s")
    }

    /// A save's pictures are the movie's, from its reported start, without a hole; it starts on a keyframe,
    /// its sound starts with its first picture and lasts as long.
    static func checkAgainstMovie(_ save: ReplaySave, movie: [Int]) throws {
        let pictures = try TestInputs.frameNumbers(save.path)
        let first = Int((save.start * 30).rounded())
        #expect(pictures.count == Int((save.seconds * 30).rounded()), "\(save)")
        #expect(first + pictures.count <= movie.count && Array(movie[first..<(first + pictures.count)]) == pictures,
                "\(save.path): \(pictures) against the movie from \(first)")
        #expect(try LiveJoinTests.keyframeIndexes(save.path).first == 0)
        try checkSound(save)
        #expect(!FileManager.default.fileExists(atPath: CaptureSession.partialPath(for: save.path)))
        try checkReaders(save, pictures: pictures.count)
    }

    /// Readers nobody here wrote (GStreamer, MediaInfo, Chromium) see the save's pictures and length as its
    /// result says.
    static func checkReaders(_ save: ReplaySave, pictures: Int) throws {
        let readers = try IndependentReaders.disagreements(save.path, frames: pictures, duration: save.seconds)
        #expect(readers.isEmpty, "\(save.path) (\(pictures) pictures, \(save.seconds) s): \(readers)")
    }

    @Test func savesWhileRecordingHoldTheMoviesPicturesUpToEachRequest() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try ReplayBufferTests.configuration(folder + "/movie.mov", seconds: 8)
        let replay = ReplayBuffer(seconds: 10)
        configuration.replayBuffer = replay
        let session = CaptureSession()
        try session.start(configuration)
        ReplayBufferTests.waitForTimeline(session, seconds: 4.5)
        let before = try #require(session.status.timeline)
        let first = try session.saveReplayAndWait(to: folder + "/first.mov", seconds: 2)
        let after = try #require(session.status.timeline)
        // Two saves at once, overlapping in time: all held, and the last 3 s.
        ReplayBufferTests.waitForTimeline(session, seconds: 6)
        let both = Locked<[ReplaySave]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                let save = try replay.saveAndWait(to: folder + "/overlap\(index).mov", seconds: index == 0 ? nil : 3)
                both.withLock { $0.append(save) }
            } catch {
                Issue.record("save \(index): \(error)")
            }
        }
        #expect(throws: ReelError.self, "an existing file") { try replay.saveAndWait(to: first.path) }
        let result = session.waitUntilFinished()
        #expect(result.recordedSuccessfully, "\(result.error ?? "")")
        #expect(result.replays?.count == 3)

        let movie = try TestInputs.frameNumbers(folder + "/movie.mov")
        #expect(movie.count == 240)
        // The first: 2 s asked, from the latest keyframe (every 2 s) that gives them.
        #expect(first.seconds >= 2 && first.seconds < 4, "\(first)")
        let moment = try #require(first.requestedAt)
        // The newest picture the movie had then: the capture's, or on a busy machine up to the movie's queue behind it.
        let queued = Double(MovieRecorder.livePictureQueue + 2) / 30
        #expect(moment >= before - queued && moment <= after, "asked at \(before)-\(after) s of the timeline: \(moment)")
        #expect(first.end > moment && first.end <= moment + 4.0 / 30 + 1e-9, "ends \(first.end) for a request at \(moment)")
        try ReplayBufferTests.checkAgainstMovie(first, movie: movie)
        for save in both.withLock({ $0 }) {
            try ReplayBufferTests.checkAgainstMovie(save, movie: movie)
            #expect(save.requestedSeconds != nil ? save.seconds >= 3 && save.seconds < 5 : save.start == 0, "\(save)")
        }
    }

    @Test func aSessionWithoutAMovieBuffersAndSaves() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inputs = try LiveStreamOutputTests.inputs()
        let session = CaptureSession()
        let replay = ReplayBuffer(seconds: 3, preset: inputs.preset)
        #expect(throws: ReelError.self, "not running yet") { try session.addOutput(replay) }
        try session.start(inputs)
        await #expect(throws: ReelError.self, "no replay buffer yet") { try await session.saveReplay(to: folder + "/none.mov") }
        try session.addOutput(replay)
        #expect(throws: ReelError.self, "one recording fills a buffer") { try session.addOutput(replay) }
        ReplayBufferTests.waitForTimeline(session, seconds: 5.5)
        let save = try await session.saveReplay(to: folder + "/replay.mov")  // the async form
        session.stop()
        _ = await session.finished()
        // Everything held: the last 3 s from a keyframe (one more group at most).
        #expect(save.seconds >= 3 && save.seconds < 5, "\(save)")
        let pictures = try TestInputs.frameNumbers(save.path)
        #expect(pictures.count == Int((save.seconds * 30).rounded()))
        #expect(zip(pictures, pictures.dropFirst()).allSatisfy { ($0 + 1) % 256 == $1 }, "\(pictures)")
        #expect(try LiveJoinTests.keyframeIndexes(save.path).first == 0)
        // Its sound, encoded as it came (not held back to the pictures out of the encoder), ends with them.
        try Self.checkSound(save)
        try Self.checkReaders(save, pictures: pictures.count)
        #expect(!FileManager.default.fileExists(atPath: folder + "/none.mov"))
    }

    @Test func theByteBoundHoldsAndSavesAfterTheEnd() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Busy 720p pictures as fast as the encoder goes (a 2 s group is about 1.2 MB): 4 MiB holds a few groups.
        var configuration = try FastRecording.configuration(folder + "/movie.mov", preset: "720p", limits: RecordingLimits(maxDuration: 10))
        let replay = ReplayBuffer(seconds: 60, maxBytes: 4 << 20)
        configuration.replayBuffer = replay
        let session = CaptureSession()
        try session.start(configuration)
        let result = session.waitUntilFinished()
        #expect(result.recordedSuccessfully)
        let held = replay.held
        #expect(held.bytes <= 4 << 20 && held.seconds > 1 && held.seconds < 9, "\(held)")
        // The buffer outlives its recording: its last pictures are complete, saved to the movie's end.
        let save = try replay.saveAndWait(to: folder + "/after.mov")
        #expect(abs(save.end - 10) < 1e-6 && abs(save.seconds - held.seconds) < 1e-6, "\(save) held \(held)")
        #expect(save.bytes < (4 << 20) + 64 * 1024)
        let pictures = try TestInputs.videoPacketTimes(save.path)
        #expect(pictures.count == Int((save.seconds * 30).rounded()))
        #expect(try LiveJoinTests.keyframeIndexes(save.path).first == 0)
    }

    @Test func badSavesWriteNothing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let replay = ReplayBuffer(seconds: 5)
        #expect(throws: ReelError.self) { try replay.saveAndWait(to: folder + "/empty.mov") }  // nothing held yet
        #expect(throws: ReelError.self) { try replay.saveAndWait(to: folder + "/clip.mp4") }
        #expect(throws: ReelError.self) { try replay.saveAndWait(to: folder + "/missing/clip.mov") }
        #expect(throws: ReelError.self) { try replay.saveAndWait(to: folder + "/clip.mov", seconds: 0) }
        #expect(throws: ReelError.self) { try ReplayBuffer(seconds: 0.5).validate() }
        #expect(throws: ReelError.self) { try ReplayBuffer(maxBytes: 1000).validate() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
