import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 14: movies that come and go while a session runs. The source's pictures carry their own number, so
/// each added movie must hold a run of the main movie's pictures with nothing missing: from the first
/// picture after it was added to its own stop (or the session's).
@Suite struct MovieOutputTests {
    /// A session of inputs alone with two microphones as separate tracks (the library's `audioTracks`): a
    /// movie added while it runs records one named track per input, each with its own tone.
    @Test func aMovieAddedToASessionOfSeparateSoundTracks() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        var inputs = CaptureInputs(video: try DeviceSpec(parsing: "lavfi:testsrc2"),
                                   audio: try DeviceSpec(parsing: "lavfi:sine=f=440?name=Left desk"), preset: preset)
        inputs.additionalAudio = [try DeviceSpec(parsing: "lavfi:sine=f=1000?name=Right desk")]
        inputs.audioTracks = .separate
        let session = CaptureSession()
        try session.start(inputs)
        try await Task.sleep(for: .milliseconds(300))
        let movie = MovieOutput(outputPath: "\(folder)/desks.mov", preset: preset, limits: RecordingLimits(maxDuration: 1))
        try session.addOutput(movie)
        let result = try await movie.finished()
        session.stop()
        _ = await session.finished()
        #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached, "\(result)")
        let tracks = try FFprobe.streams("\(folder)/desks.mov").filter { $0["codec_type"] as? String == "audio" }
        #expect(tracks.map { ($0["tags"] as? [String: Any])?["handler_name"] as? String } == ["Left desk", "Right desk"], "\(tracks)")
        for (track, frequency) in [440.0, 1000.0].enumerated() {
            let samples = try TestInputs.monoSamples("\(folder)/desks.mov", sampleRate: 48_000, stream: track)
            let fit = ToneFit(Array(samples[4_800..<min(samples.count, 43_200)]), sampleRate: 48_000, frequencies: [440, 1000])
            #expect(fit.amplitudes[track] > 0.05 && fit.amplitudes[1 - track] < 0.002, "track \(track) (\(frequency) Hz): \(fit.amplitudes)")
        }
    }

    @Test func moviesAddedAndStoppedWhileTheSessionRuns() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        var small = preset
        (small.video.width, small.video.height) = (64, 64)
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/main.mov", video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset, limits: RecordingLimits())
        let session = CaptureSession()
        // Added before the start: it starts with the session, on its first picture, and keeps its own limit.
        let early = MovieOutput(outputPath: "\(folder)/early.mov", preset: small, limits: RecordingLimits(maxDuration: 0.5))
        try session.addOutput(early)
        try session.start(configuration)
        try await Task.sleep(for: .milliseconds(500))
        // One at the main movie's size (it shares its pictures), one at a size of its own (a new rendition).
        let same = MovieOutput(outputPath: "\(folder)/same.mov", preset: preset)
        let other = MovieOutput(outputPath: "\(folder)/other.mov", preset: small)
        try session.addOutput(same)
        try session.addOutput(other)
        #expect(throws: ReelError.self) { try session.addOutput(MovieOutput(outputPath: "\(folder)/same.mov", preset: preset)) }
        try await Task.sleep(for: .milliseconds(700))
        same.stop()
        let sameResult = try await same.finished()
        #expect(sameResult.stopReason == .stopped && sameResult.recordedSuccessfully, "\(sameResult.stopReason): \(sameResult.error ?? "")")
        try await Task.sleep(for: .milliseconds(500))
        session.stop()
        let result = await session.finished()
        #expect(result.recordedSuccessfully, "\(result.stopReason): \(result.error ?? "")")
        #expect(result.droppedFrames == 0)
        #expect(result.outputs?.map(\.output) == ["\(folder)/main.mov", "\(folder)/early.mov", "\(folder)/same.mov", "\(folder)/other.mov"])
        let earlyResult = try #require(early.result)
        #expect(earlyResult.stopReason == .maxDurationReached && earlyResult.videoFrames == 15, "\(earlyResult)")
        let otherResult = try #require(other.result)
        #expect(otherResult.stopReason == .stopped && otherResult.recordedSuccessfully)

        let main = try TestInputs.frameNumbers("\(folder)/main.mov")
        let sameNumbers = try TestInputs.frameNumbers("\(folder)/same.mov")
        let otherNumbers = try TestInputs.frameNumbers("\(folder)/other.mov")
        // Frame numbers count modulo 256: consecutive pictures differ by one (or repeat, at a constant rate).
        func contiguous(_ numbers: [Int]) -> Bool { zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 <= 1 } }
        #expect(contiguous(main), "the main movie lost no picture: \(main)")
        let earlyNumbers = try TestInputs.frameNumbers("\(folder)/early.mov")
        #expect(earlyNumbers == Array(main.prefix(15)), "early starts on the main movie's first picture: \(earlyNumbers) against \(main.prefix(20))")
        // Its sound lasts as its pictures do (silence first, should the sound have started after the first picture).
        #expect(try SegmentInspection.playedAudioSamples("\(folder)/early.mov") == 24000)
        for (name, numbers) in [("same", sameNumbers), ("other", otherNumbers)] {
            #expect(numbers.count >= 15 && contiguous(numbers), "\(name) lost no picture: \(numbers)")
            // Its pictures are the main movie's run from the first picture after it was added.
            let start = numbers.first.flatMap { first in main.indices.dropFirst(5).first { main[$0] == first } }
            #expect(start != nil, "\(name) starts after it was added, on a main movie picture")
            if let start {
                #expect(Array(main[start..<min(main.count, start + numbers.count)]) == numbers, "\(name) holds the main movie's run of pictures")
                #expect(name == "other" ? start + numbers.count == main.count : start + numbers.count < main.count - 10,
                        "\(name) ends \(name == "other" ? "with the session" : "before the session")")
            }
        }
        let otherStream = try #require(try FFprobe.stream("\(folder)/other.mov", type: "video"))
        #expect(otherStream["width"] as? Int == 64)
        // After the session ended, a movie added waits for the next start: nothing is written meanwhile.
        let late = MovieOutput(outputPath: "\(folder)/late.mov", preset: preset)
        try session.addOutput(late)
        #expect(late.result == nil && !FileManager.default.fileExists(atPath: "\(folder)/late.mov"))
        #expect(throws: ReelError.self) { try late.waitUntilFinished() }
    }

    /// Issue 17's session: it runs its inputs without a movie of its own (a preview and photos meanwhile),
    /// movies come and go one after another, and it ends only when stopped, naming no output of its own.
    @Test func sessionWithoutAMovieOfItsOwn() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        var configuration = RecordingConfiguration(
            outputPath: "\(folder)/unused.mov", video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
            audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset, limits: RecordingLimits())
        configuration.recordsMovie = false
        let session = CaptureSession()
        let preview = try PreviewOutput(width: 64, framesPerSecond: 10)
        session.addOutput(preview)
        let photos = PhotoOutput()
        session.addOutput(photos)
        try session.start(configuration)
        let pictures = Task { await preview.pictures.reduce(0) { count, _ in count + 1 } }
        try await Task.sleep(for: .milliseconds(400))
        for take in 1...3 {
            let movie = MovieOutput(outputPath: "\(folder)/take\(take).mov", preset: preset,
                                    limits: RecordingLimits(maxDuration: take == 3 ? 0.5 : nil))
            try session.addOutput(movie)
            if take < 3 {
                try await Task.sleep(for: .milliseconds(600))
                movie.stop()
            }
            let result = try await movie.finished()
            #expect(result.recordedSuccessfully && result.stopReason == (take == 3 ? .maxDurationReached : .stopped),
                    "take \(take): \(result.stopReason) \(result.error ?? "")")
            let numbers = try TestInputs.frameNumbers("\(folder)/take\(take).mov")
            #expect(numbers.count >= 14 && zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 == 1 },
                    "take \(take) holds consecutive pictures: \(numbers)")
        }
        // A movie that stopped by its limit does not end a session without a movie of its own.
        #expect(session.currentState == .recording)
        _ = try await photos.capture(to: StillRequest(path: "\(folder)/photo.jpg"))
        session.stop()
        let result = await session.finished()
        #expect(result.output == "" && result.stopReason == .stopped && result.outputs == nil, "\(result)")
        #expect(await pictures.value >= 10, "the preview ran all along")
        #expect(Scratch.files(in: folder) == ["photo.jpg", "take1.mov", "take2.mov", "take3.mov"])
    }

    /// A session made from its inputs alone (AVCaptureSession's shape): a movie added before the start
    /// begins on its first picture with segments and a limit of its own, one added later on the next
    /// picture, the session goes on after both, and a movie added once it finished records at the retake.
    @Test func aSessionFromItsInputsAloneRecordsTheMoviesAddedToIt() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        let inputs = CaptureInputs(video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
                                   audio: try DeviceSpec(parsing: "lavfi:sine"), preset: preset)
        let session = CaptureSession()
        var segmented = Segmentation()
        segmented.duration = 1
        let first = MovieOutput(outputPath: "\(folder)/first-{index}.mov", preset: preset,
                                limits: RecordingLimits(maxDuration: 2.4), segmentation: segmented)
        try session.addOutput(first)
        try session.start(inputs)
        // Once the first movie has pictures (however long a busy machine takes to deliver them), not after a
        // fixed time: the second must begin after the first's start.
        for _ in 0..<400 where (first.progress?.videoFrames ?? 0) < 6 { try await Task.sleep(for: .milliseconds(50)) }
        let second = MovieOutput(outputPath: "\(folder)/second.mov", preset: preset)
        try session.addOutput(second)
        let firstResult = try await first.finished()
        #expect(firstResult.stopReason == .maxDurationReached && firstResult.videoFrames == 72, "\(firstResult)")
        #expect(firstResult.segments?.map(\.videoFrames) == [30, 30, 12])
        #expect(session.currentState == .recording, "a session from its inputs goes on after its movies")
        try await Task.sleep(for: .milliseconds(300))
        second.stop()
        let secondResult = try await second.finished()
        #expect(secondResult.recordedSuccessfully && secondResult.stopReason == .stopped, "\(secondResult)")
        let firstNumbers = try (1...3).flatMap { try TestInputs.frameNumbers("\(folder)/first-00\($0).mov") }
        let secondNumbers = try TestInputs.frameNumbers("\(folder)/second.mov")
        func contiguous(_ numbers: [Int]) -> Bool { zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 <= 1 } }
        #expect(firstNumbers.count == 72 && contiguous(firstNumbers), "\(firstNumbers)")
        #expect(secondNumbers.count >= 10 && contiguous(secondNumbers), "\(secondNumbers)")
        // It started with the session: the second movie, added later, begins past its first picture.
        #expect(secondNumbers.first.map { ($0 - firstNumbers[0] + 256) % 256 >= 5 } == true, "\(firstNumbers) \(secondNumbers)")
        session.stop()
        let result = await session.finished()
        #expect(result.stopReason == .stopped && result.output == "", "\(result)")

        // A movie added after the end starts with the next start (a retake on the same inputs).
        let retake = MovieOutput(outputPath: "\(folder)/retake.mov", preset: preset, limits: RecordingLimits(maxDuration: 0.5))
        try session.addOutput(retake)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/retake.mov"))
        try session.start(inputs)
        let retakeResult = try await retake.finished()
        #expect(retakeResult.recordedSuccessfully && retakeResult.videoFrames == 15, "\(retakeResult)")
        session.stop()
        _ = await session.finished()
        #expect(Scratch.files(in: folder) == ["first-001.mov", "first-002.mov", "first-003.mov", "retake.mov", "second.mov"])
    }

    /// What is asked of a movie before its session starts is carried out when it does: one paused then starts
    /// paused (its first picture is the one after `resume()`), one stopped then is left out (no file).
    @Test func aMoviePausedOrStoppedBeforeTheStartStartsSo() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        let inputs = CaptureInputs(video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))"),
                                   audio: nil, preset: preset)
        let session = CaptureSession()
        let whole = MovieOutput(outputPath: "\(folder)/whole.mov", preset: preset)
        let paused = MovieOutput(outputPath: "\(folder)/paused.mov", preset: preset)
        let dropped = MovieOutput(outputPath: "\(folder)/dropped.mov", preset: preset)
        for movie in [whole, paused, dropped] { try session.addOutput(movie) }
        paused.pause()
        dropped.stop()
        #expect(paused.isPaused)
        try session.start(inputs)
        for _ in 0..<400 where (whole.progress?.videoFrames ?? 0) < 15 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(paused.isPaused && (paused.progress?.videoFrames ?? 0) == 0)
        paused.resume()
        let resumedAt = whole.progress?.videoFrames ?? 0
        for _ in 0..<400 where (whole.progress?.videoFrames ?? 0) < resumedAt + 20 { try await Task.sleep(for: .milliseconds(50)) }
        session.stop()
        _ = await session.finished()
        await #expect(throws: ReelError.self) { _ = try await dropped.finished() }
        let wholeNumbers = try TestInputs.frameNumbers("\(folder)/whole.mov")
        let pausedNumbers = try TestInputs.frameNumbers("\(folder)/paused.mov")
        func contiguous(_ numbers: [Int]) -> Bool { zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 <= 1 } }
        #expect(contiguous(pausedNumbers) && pausedNumbers.count >= 10, "\(pausedNumbers)")
        // Nothing from before the resume: its first picture is at least 15 past the session's first.
        #expect(pausedNumbers.first.map { ($0 - wholeNumbers[0] + 256) % 256 >= 15 } == true, "\(wholeNumbers) \(pausedNumbers)")
        #expect(Scratch.files(in: folder) == ["paused.mov", "whole.mov"])
    }

    /// A finished session lets go of its movies (encoders, frames, files): nothing the engine hands a movie
    /// may hold the engine's state, which holds the movie (a batch of 20 transcodes once kept 570 MB so).
    @Test func aFinishedSessionLetsGoOfItsMovies() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        weak var recorder: MovieRecorder?
        do {
            // A session with a movie of its own keeps its movies to the end (one from its inputs alone lets
            // each go as it finishes).
            let configuration = RecordingConfiguration(
                outputPath: "\(folder)/main.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2=size=128x128:rate=30?realtime=0"),
                audio: try DeviceSpec(parsing: "lavfi:sine?realtime=0"), preset: preset, limits: RecordingLimits(maxDuration: 0.5))
            let session = CaptureSession()
            let movie = MovieOutput(outputPath: "\(folder)/movie.mov", preset: preset, limits: RecordingLimits(maxDuration: 0.5))
            try session.addOutput(movie)
            try session.start(configuration)
            let result = try await movie.finished()
            #expect(result.recordedSuccessfully && result.videoFrames == 15, "\(result)")
            session.stop()
            _ = await session.finished()
            recorder = movie.recorder
            #expect(recorder != nil)
        }
        // The session's thread lets go of its engine as it ends, just after the result is out.
        for _ in 0..<500 where recorder != nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(recorder == nil, "the movie outlived its session and every reference to it")
    }

    /// A movie added before the start whose file cannot be written makes the start fail, recording nothing,
    /// and stays added for the next start.
    @Test func aMovieAddedBeforeTheStartIsCheckedByIt() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try PresetLibrary.preset(named: "352x288")
        let inputs = CaptureInputs(video: try DeviceSpec(parsing: "lavfi:testsrc2=size=128x128:rate=30"), audio: nil, preset: preset)
        #expect(FileManager.default.createFile(atPath: "\(folder)/taken.mov", contents: Data("keep".utf8)))
        let session = CaptureSession()
        try session.addOutput(MovieOutput(outputPath: "\(folder)/taken.mov", preset: preset))
        #expect(throws: ReelError.self) { try session.start(inputs) }
        #expect(session.currentState == .ready)
        #expect(throws: ReelError.self) { try session.start(inputs) }
        #expect(try String(contentsOfFile: "\(folder)/taken.mov", encoding: .utf8) == "keep")
        #expect(Scratch.files(in: folder) == ["taken.mov"])
    }

    /// A movie of a new size added while pictures captured before it wait in the session's queue (an unpaced
    /// source keeps the queue full): those pictures have no picture at its size, and the movie starts with
    /// the first one that has (CI once crashed here with an index out of range).
    @Test func aMovieOfANewSizeSkipsPicturesCapturedBeforeIt() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (128, 128)
        let configuration = RecordingConfiguration(
            outputPath: "\(folder)/main.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2=size=128x128:rate=30?realtime=0"),
            // Far more media than is encoded before the stop: unpaced 128x128 pictures encode at hundreds a
            // second, and 20 s of them could end the session before the last movie is added.
            audio: nil, preset: preset, limits: RecordingLimits(maxDuration: 3600))
        let session = CaptureSession()
        try session.start(configuration)
        var added: [MovieOutput] = []
        for size in [32, 48, 64, 80] {
            var small = preset
            (small.video.width, small.video.height) = (size, size)
            let movie = MovieOutput(outputPath: "\(folder)/\(size).mov", preset: small)
            try session.addOutput(movie)
            added.append(movie)
            try await Task.sleep(for: .milliseconds(30))
        }
        session.stop()
        _ = await session.finished()
        for movie in added {
            let result = try #require(movie.result)
            #expect(result.recordedSuccessfully, "\(movie.outputPath): \(result.error ?? "")")
        }
    }
}
