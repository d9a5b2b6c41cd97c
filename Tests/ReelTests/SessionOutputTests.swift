import Foundation
import FFmpegCore
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// The session knows its outputs only as `SessionOutput`s: an output of a kind it has never seen (one that
/// counts what it is handed) gets every item in time order, its pool slots come back, and a finite one that
/// stops by itself ends the session as a movie at its limits would.
@Suite struct SessionOutputTests {
    final class CountingOutput: SessionOutput, @unchecked Sendable {
        let role: SessionOutputRole
        private let stopAfterPictures: Int?
        private let state = Locked<(pictures: Int, audioBlocks: Int, lastTime: Double, inOrder: Bool, started: Bool,
                                   ended: SessionEngine.Ending?)>((0, 0, -1, true, false, nil))

        init(role: SessionOutputRole, stopAfterPictures: Int? = nil) {
            self.role = role
            self.stopAfterPictures = stopAfterPictures
        }

        var counts: (pictures: Int, audioBlocks: Int, inOrder: Bool, started: Bool, ended: SessionEngine.Ending?) {
            state.withLock { ($0.pictures, $0.audioBlocks, $0.inOrder, $0.started, $0.ended) }
        }

        func start() { state.withLock { $0.started = true } }
        func wants(_ type: MediaType) -> Bool { !isDone }
        var isDone: Bool { state.withLock { state in stopAfterPictures.map { state.pictures >= $0 } ?? false } }
        func end(_ ending: SessionEngine.Ending) { state.withLock { $0.ended = ending } }

        func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws {
            state.withLock { state in
                if type == .video {
                    state.pictures += 1
                    let time = item.time.seconds
                    if time < state.lastTime { state.inOrder = false }
                    state.lastTime = time
                } else {
                    state.audioBlocks += 1
                }
            }
        }
    }

    /// The movies it plans are never added: only the test's outputs are.
    private static func preparation(seconds: Int, recordsMovie: Bool, folder: String = "/nonexistent") throws -> RecordingPreparation {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        var configuration = RecordingConfiguration(
            outputPath: "\(folder)/unused.mov",
            video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30")),trim=duration=\(seconds)?realtime=0"),
            audio: try DeviceSpec(parsing: "lavfi:sine=duration=\(seconds)?realtime=0"), preset: preset, limits: RecordingLimits())
        configuration.recordsMovie = recordsMovie
        return try RecordingPreparation(configuration)
    }

    @Test func anOutputOfANewKindGetsEveryItemInOrder() throws {
        let preparation = try SessionOutputTests.preparation(seconds: 1, recordsMovie: false)
        let (engine, movies) = preparation.makeSession(mainProgress: { _ in })
        #expect(movies.isEmpty)
        let counter = CountingOutput(role: .companion)
        #expect(engine.add(counter))
        #expect(counter.counts.started)
        let (results, ending) = engine.run()
        #expect(results.isEmpty && ending.reason == .inputEnded, "\(ending)")
        let counts = counter.counts
        #expect(counts.pictures == 30 && counts.inOrder, "\(counts)")
        #expect(counts.audioBlocks > 0)
        #expect(counts.ended?.reason == .inputEnded)
        // Once ended, the session takes no more outputs; the refused one is ended at once.
        let late = CountingOutput(role: .companion)
        #expect(!engine.add(late))
        #expect(late.counts.ended != nil && !late.counts.started)
    }

    @Test func finiteOutputsThatStopByThemselvesEndTheSession() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preparation = try SessionOutputTests.preparation(seconds: 5, recordsMovie: true, folder: folder)
        let (engine, _) = preparation.makeSession(mainProgress: { _ in })
        let finite = CountingOutput(role: .finite, stopAfterPictures: 10)
        let companion = CountingOutput(role: .companion)
        engine.add(finite)
        engine.add(companion)
        let (_, ending) = engine.run()
        // The companion does not hold the session open; the finite output's limit ends it long before the
        // inputs' five seconds.
        #expect(ending.reason == .stopped, "\(ending)")
        #expect(finite.counts.pictures == 10)
        #expect(companion.counts.pictures >= 10 && companion.counts.pictures < 150, "\(companion.counts)")
        #expect(Scratch.files(in: folder).isEmpty, "nothing is written for movies that were never added")
    }
}
