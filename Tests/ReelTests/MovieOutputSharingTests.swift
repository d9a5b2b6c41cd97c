import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 25: MovieOutputs of one preset take their pictures from one encoder (SharedVideoEncoder), whenever
/// each is added, paused, resumed or stopped. The source's pictures carry their own number, and a shared
/// encoder shows in the files' bytes: a picture held by two movies is the same packet in both (two encoders,
/// started on different pictures, place their keyframes and references differently).
@Suite struct MovieOutputSharingTests {
    func contiguous(_ numbers: [Int]) -> Bool { zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 <= 1 } }

    /// Numbered pictures at 30 fps and a tone, live or unpaced, at a small size.
    func numberedInputs(paced: Bool, preset name: String = "352x288", rate: String = "30") throws -> (CaptureInputs, Preset) {
        var preset = try PresetLibrary.preset(named: name)
        (preset.video.width, preset.video.height) = (128, 128)
        let unpaced = paced ? "" : "?realtime=0"
        return (CaptureInputs(video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: rate))\(unpaced)"),
                              audio: try DeviceSpec(parsing: "lavfi:sine\(unpaced)"), preset: preset), preset)
    }

    func waitForPictures(_ movie: MovieOutput, atLeast count: Int) async throws {
        for _ in 0..<600 where (movie.progress?.videoFrames ?? 0) < count { try await Task.sleep(for: .milliseconds(50)) }
    }

    @Test func moviesOfOnePresetJoinPauseAndStopOnOneEncoder() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: true)
        let session = CaptureSession()
        let first = MovieOutput(outputPath: "\(folder)/first.mov", preset: preset)
        try session.addOutput(first)
        try session.start(inputs)
        try await waitForPictures(first, atLeast: 10)
        // Joins the running encoder at its next picture (a keyframe for both).
        let second = MovieOutput(outputPath: "\(folder)/second.mov", preset: preset)
        try session.addOutput(second)
        try await waitForPictures(second, atLeast: 15)
        // Paused alone while the first goes on.
        second.pause()
        // Progress comes twice a second (15 pictures), so what it says now may be from before the pause:
        // 30 more pictures of the first movie are at least 15 past the pause on a busy machine too.
        let pausedAt = first.progress?.videoFrames ?? 0
        try await waitForPictures(first, atLeast: pausedAt + 30)
        second.resume()
        let resumedAt = second.progress?.videoFrames ?? 0
        try await waitForPictures(second, atLeast: resumedAt + 15)
        // The first movie, whose start made the encoder, ends first: the encoder goes on for the second.
        first.stop()
        let firstResult = try await first.finished()
        let afterFirst = second.progress?.videoFrames ?? 0
        try await waitForPictures(second, atLeast: afterFirst + 20)
        session.stop()
        _ = await session.finished()
        let secondResult = try #require(second.result)
        #expect(firstResult.recordedSuccessfully && firstResult.stopReason == .stopped, "\(firstResult)")
        #expect(secondResult.recordedSuccessfully && secondResult.stopReason == .stopped, "\(secondResult)")

        let firstNumbers = try TestInputs.frameNumbers("\(folder)/first.mov")
        let secondNumbers = try TestInputs.frameNumbers("\(folder)/second.mov")
        let firstPackets = try FFprobe.videoPackets("\(folder)/first.mov")
        let secondPackets = try FFprobe.videoPackets("\(folder)/second.mov")
        #expect(firstPackets.count == firstNumbers.count && secondPackets.count == secondNumbers.count)
        #expect(contiguous(firstNumbers), "the first movie lost no picture: \(firstNumbers)")
        // The second: one run up to its pause, one from its resume, at least 10 pictures apart.
        let jumps = secondNumbers.indices.dropFirst().filter { ($0 == 0 ? 0 : (secondNumbers[$0] - secondNumbers[$0 - 1] + 256) % 256) > 1 }
        #expect(jumps.count == 1, "one pause: \(secondNumbers)")
        guard let resume = jumps.first, secondPackets.count == secondNumbers.count, firstPackets.count == firstNumbers.count else { return }
        #expect((secondNumbers[resume] - secondNumbers[resume - 1] + 256) % 256 >= 10, "\(secondNumbers)")
        #expect(secondPackets[0].keyframe && secondPackets[resume].keyframe, "each window starts with a keyframe")
        // Every picture the two hold alike is the same packet: one encoder made it.
        let firstByNumber = Dictionary(zip(firstNumbers, firstPackets.map(\.hash)), uniquingKeysWith: { first, _ in first })
        let shared = zip(secondNumbers, secondPackets).filter { firstByNumber[$0.0] != nil }
        #expect(shared.count >= 25, "\(secondNumbers) \(firstNumbers)")
        #expect(shared.allSatisfy { firstByNumber[$0.0] == $0.1.hash }, "the second movie's pictures are the first's packets")
        // The second's start and resume were keyframes the first holds too (it was recording then).
        let joined = try #require(firstNumbers.firstIndex(of: secondNumbers[0]), "the second starts on a picture the first holds")
        #expect(joined > 0 && firstPackets[joined].keyframe)
        // Never were both paused: one encoder made every picture of both. Its banner is in its first picture,
        // which the first movie holds unless it started a picture later, at its first sound; the second,
        // which joined later, holds none.
        let banners = (try Self.encoderBanners("\(folder)/first.mov"), try Self.encoderBanners("\(folder)/second.mov"))
        #expect(banners.0 <= 1 && banners.1 == 0, "\(banners)")
        // It went on past the first movie's end, on the same encoder.
        let pastFirst = secondNumbers.drop { $0 != firstNumbers.last! }.dropFirst()
        #expect(pastFirst.count >= 15 && contiguous(Array(secondNumbers[resume...])), "\(secondNumbers) after \(firstNumbers.last!)")
        // Its sound was cut at the same whole frames: the tracks are as long as each other.
        let video = Double(secondNumbers.count) / 30
        let audio = Double(secondResult.audioSamples) / 48_000
        #expect(abs(audio - video) <= 1.0 / 30 + 0.001, "sound \(audio) s, pictures \(video) s")
        for path in ["first.mov", "second.mov"] {
            let decoding = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", "\(folder)/\(path)", "-f", "null", "-"])
            #expect(decoding.status == 0 && decoding.standardError.isEmpty, "\(path): \(decoding.standardError)")
        }
    }

    /// Of unpaced inputs (realtime=0) the encoder runs as fast as its movies take its packets, and waits for
    /// them; edges fall at the next picture it sends. Two movies added while the session runs, each with a
    /// duration limit of its own: each holds exactly its limit's pictures and sound, from the same packets.
    @Test func onUnpacedInputsMoviesEndExactlyAtTheirLimits() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: false)
        let session = CaptureSession()
        try session.start(inputs)
        let long = MovieOutput(outputPath: "\(folder)/long.mov", preset: preset, limits: RecordingLimits(maxDuration: 2))
        let short = MovieOutput(outputPath: "\(folder)/short.mov", preset: preset, limits: RecordingLimits(maxDuration: 1))
        try session.addOutput(long)
        try session.addOutput(short)
        let longResult = try await long.finished()
        let shortResult = try await short.finished()
        session.stop()
        _ = await session.finished()
        for (result, frames) in [(longResult, 60), (shortResult, 30)] {
            #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached, "\(result)")
            #expect(result.videoFrames == frames && result.audioSamples == frames * 1600, "\(result)")
        }
        let longNumbers = try TestInputs.frameNumbers("\(folder)/long.mov")
        let shortNumbers = try TestInputs.frameNumbers("\(folder)/short.mov")
        #expect(contiguous(longNumbers) && contiguous(shortNumbers), "\(longNumbers) \(shortNumbers)")
        let longPackets = try FFprobe.videoPackets("\(folder)/long.mov")
        let shortPackets = try FFprobe.videoPackets("\(folder)/short.mov")
        let longByNumber = Dictionary(zip(longNumbers, longPackets.map(\.hash)), uniquingKeysWith: { first, _ in first })
        let shared = zip(shortNumbers, shortPackets).filter { longByNumber[$0.0] != nil }
        #expect(shared.count >= 20 && shared.allSatisfy { longByNumber[$0.0] == $0.1.hash }, "one encoder: \(longNumbers) \(shortNumbers)")
    }

    /// A source slower than the preset: the encoder shows each picture in two slots, and each movie says how
    /// many of its pictures repeat the one before (duplicatedFrames), as a movie with its own encoder does.
    @Test func moviesCountTheirEncodersRepeatedPictures() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: false, rate: "15")
        let session = CaptureSession()
        try session.start(inputs)
        let movies = ["one", "two"].map { MovieOutput(outputPath: "\(folder)/\($0).mov", preset: preset, limits: RecordingLimits(maxDuration: 1)) }
        for movie in movies { try session.addOutput(movie) }
        var results: [RecordingResult] = []
        for movie in movies { results.append(try await movie.finished()) }
        session.stop()
        _ = await session.finished()
        for (name, result) in zip(["one", "two"], results) {
            let numbers = try TestInputs.frameNumbers("\(folder)/\(name).mov")
            let repeats = numbers.indices.dropFirst().filter { numbers[$0] == numbers[$0 - 1] }.count
            #expect(result.videoFrames == 30 && numbers.count == 30 && repeats >= 14, "\(name): \(numbers)")
            #expect(result.duplicatedFrames == repeats, "\(name): \(result.duplicatedFrames ?? -1) said, \(repeats) in the file")
        }
    }

    /// A movie stopped while paused ends at its pause at once (every picture before it has come: it need not
    /// wait for a keyframe at the stop), and its encoder ends with it: a movie added later gets a new one.
    @Test func aMovieStoppedWhilePausedEndsAtItsPause() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: true)
        let session = CaptureSession()
        try session.start(inputs)
        let paused = MovieOutput(outputPath: "\(folder)/paused.mov", preset: preset)
        try session.addOutput(paused)
        try await waitForPictures(paused, atLeast: 15)
        paused.pause()
        try await Task.sleep(for: .milliseconds(500))
        let stoppedAt = Date()
        paused.stop()
        let result = try await paused.finished()
        // Inside the 10 s a stop may wait for its keyframe (sharedEndWait), which is what it would take if it
        // waited for one (its encoder makes none while paused); the rest is finalizing, on a busy machine too.
        #expect(Date().timeIntervalSince(stoppedAt) < Double(MovieRecorder.sharedEndWait) / 1e9 - 1)
        #expect(result.recordedSuccessfully && result.stopReason == .stopped, "\(result)")
        let numbers = try TestInputs.frameNumbers("\(folder)/paused.mov")
        #expect(numbers.count >= 15 && numbers.count == result.videoFrames && contiguous(numbers), "\(numbers)")
        let (audio, video) = (Double(result.audioSamples) / 48_000, Double(numbers.count) / 30)
        #expect(abs(audio - video) <= 1.0 / 30 + 0.001, "sound \(audio) s, pictures \(video) s")
        let later = MovieOutput(outputPath: "\(folder)/later.mov", preset: preset, limits: RecordingLimits(maxDuration: 0.5))
        try session.addOutput(later)
        let laterResult = try await later.finished()
        session.stop()
        _ = await session.finished()
        #expect(laterResult.recordedSuccessfully && laterResult.videoFrames == 15, "\(laterResult)")
        #expect(try FFprobe.videoPackets("\(folder)/later.mov").first?.keyframe == true)
    }

    /// A shutter tap (`reel serve`): a movie stopped as soon as it was added — before its encoder made the
    /// picture it joined at, or just after — ends at once, holding no picture or a few, not after the 10 s its
    /// end may wait for its encoder's last pictures. The stops fall at 0 to 99 ms after the add, so some land
    /// in the frame between the join and its keyframe (one in three browser taps did before the fix); a
    /// movie paused as it is added and then stopped holds nothing and ends at once too.
    @Test func aMovieStoppedAsSoonAsAddedEndsAtOnce() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: true)
        let session = CaptureSession()
        try session.start(inputs)
        try await Task.sleep(for: .milliseconds(300))
        // Every third is paused at once, then stopped: it holds nothing, and its encoder makes nothing for it.
        for delay in stride(from: 0, to: 100, by: 9) {
            let movie = MovieOutput(outputPath: "\(folder)/tap-\(delay).mov", preset: preset)
            try session.addOutput(movie)
            if delay % 3 == 0 { movie.pause() }
            try await Task.sleep(for: .milliseconds(delay))
            let stoppedAt = Date()
            movie.stop()
            let result = try await movie.finished()
            let waited = Date().timeIntervalSince(stoppedAt)
            // Inside the 10 s its end would wait (sharedEndWait), as the paused-stop test bounds it: the rest is
            // finalizing a file of a few pictures, which a busy machine may slow but not by seconds.
            #expect(waited < Double(MovieRecorder.sharedEndWait) / 1e9 - 1, "stopped \(delay) ms after the add: ended \(waited) s later")
            // No picture held: "nothing was captured" (a tap's photo is taken apart from the movie).
            #expect(result.stopReason == .stopped && result.recordedSuccessfully == (result.videoFrames > 0),
                    "stopped \(delay) ms after the add: \(result)")
            #expect(result.videoFrames <= (delay % 3 == 0 ? 0 : 10), "stopped \(delay) ms after the add: \(result.videoFrames) pictures")
        }
        session.stop()
        let sessionResult = await session.finished()
        #expect(sessionResult.error == nil, "\(sessionResult)")
    }

    /// How many encoders' first pictures a file holds (from the keyframe at or before `seconds` on): x264 and
    /// x265 write their banners ("x264 - core ...", "x265 (build ...") into the first keyframe of each.
    static func encoderBanners(_ path: String, codec: VideoCodec = .h264, from seconds: Double = 0) throws -> Int {
        let format = codec == .h264 ? "h264" : "hevc"
        let stream = path + "." + format
        defer { try? FileManager.default.removeItem(atPath: stream) }
        try TestInputs.ffmpeg(["-ss", "\(seconds)", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "\(format)_mp4toannexb",
                               "-f", format, stream])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: stream))
        let banner = Data((codec == .h264 ? "x264 - core" : "x265 (build").utf8)
        var count = 0
        var from = bytes.startIndex
        while let found = bytes.range(of: banner, in: from..<bytes.endIndex) {
            count += 1
            from = found.upperBound
        }
        return count
    }

    /// While every movie of an encoder is paused it encodes nothing (a paused movie cost a whole encode
    /// otherwise): once their pictures from before the pause are out, the encoder is drained and let go, and
    /// the resume starts a new one on a keyframe — the file shows a new encoder's banner there, and plays through.
    /// The new encoder's parameter sets must be the first's (the file was described with them): so for x265.
    @Test(arguments: ["352x288", "1080p-hevc"]) func aPausedMovieCostsNoEncoding(presetName: String) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: true, preset: presetName)
        let session = CaptureSession()
        try session.start(inputs)
        let movie = MovieOutput(outputPath: "\(folder)/movie.mov", preset: preset)
        try session.addOutput(movie)
        try await waitForPictures(movie, atLeast: 15)
        movie.pause()
        try await Task.sleep(for: .milliseconds(1000))
        movie.resume()
        let resumedAt = movie.progress?.videoFrames ?? 0
        try await waitForPictures(movie, atLeast: resumedAt + 15)
        movie.stop()
        let result = try await movie.finished()
        session.stop()
        _ = await session.finished()
        #expect(result.recordedSuccessfully && result.stopReason == .stopped, "\(result)")
        let numbers = try TestInputs.frameNumbers("\(folder)/movie.mov")
        let jumps = numbers.indices.dropFirst().filter { (numbers[$0] - numbers[$0 - 1] + 256) % 256 > 1 }
        #expect(jumps.count == 1 && jumps.first.map { (numbers[$0] - numbers[$0 - 1] + 256) % 256 >= 20 } == true, "\(numbers)")
        // From the resume's keyframe on: a new encoder's first picture. (The movie's own first picture may
        // follow its encoder's first: it starts at its first sound.)
        let resume = try #require(jumps.first)
        let banners = try Self.encoderBanners("\(folder)/movie.mov", codec: preset.video.codec, from: (Double(resume) + 0.5) / 30)
        #expect(banners == 1, "the resume started a new encoder: \(banners) banners from picture \(resume)")
        let (audio, video) = (Double(result.audioSamples) / 48_000, Double(numbers.count) / 30)
        #expect(abs(audio - video) <= 1.0 / 30 + 0.001, "sound \(audio) s, pictures \(video) s")
        let decoding = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", "\(folder)/movie.mov", "-f", "null", "-"])
        #expect(decoding.status == 0 && decoding.standardError.isEmpty, "\(decoding.standardError)")
    }

    /// A session from its inputs alone lets go of a movie once it finished, and of its encoder once that
    /// encoder's last movie left (with the pictures its pool slots held): `reel serve` makes a pair per take.
    @Test func aSessionLetsGoOfAnEncoderItsMoviesLeft() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: true)
        let session = CaptureSession()
        try session.start(inputs)
        let engine = try #require(session.shared.withLock { shared -> SessionEngine? in
            if case .recording(let running) = shared.phase { return running.engine }
            return nil
        })
        let before = engine.outputCount
        let movie = MovieOutput(outputPath: "\(folder)/take.mov", preset: preset, limits: RecordingLimits(maxDuration: 0.5))
        try session.addOutput(movie)
        #expect(engine.outputCount == before + 2, "the movie and its encoder")
        let result = try await movie.finished()
        #expect(result.recordedSuccessfully && result.videoFrames == 15, "\(result)")
        // (The encoder closes at its next picture and the session looks at the next item: bounded generously.)
        for _ in 0..<1000 where engine.outputCount > before { try await Task.sleep(for: .milliseconds(20)) }
        #expect(engine.outputCount == before, "the session let go of the movie and of its encoder")
        session.stop()
        _ = await session.finished()
    }

    /// The session's own movie takes its pictures from the encoder of its preset too, live or on an unpaced
    /// input's timeline (a file's, `realtime=0`): a MovieOutput of that preset added while the movie records
    /// costs muxing only. Its pictures are the movie's packets from where it joined, and it holds no encoder's
    /// banner (a second encoder's first picture carries one); the movie lost no picture.
    @Test(arguments: [true, false]) func theSessionsOwnMovieAndAMovieOutputOfItsPresetEncodeOnce(paced: Bool) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputs, preset) = try numberedInputs(paced: paced)
        // Unpaced, the session runs as fast as it can: the movie's limit (240 pictures, numbered without
        // wrapping) ends it, and the copy with it.
        let configuration = RecordingConfiguration(outputPath: "\(folder)/own.mov", video: inputs.video, audio: inputs.audio,
                                                   preset: preset, limits: RecordingLimits(maxDuration: paced ? nil : 8))
        let session = CaptureSession()
        try session.start(configuration)
        for _ in 0..<5000 where (session.status.capturedPictures ?? 0) < 15 { try await Task.sleep(for: .milliseconds(1)) }
        let copy = MovieOutput(outputPath: "\(folder)/copy.mov", preset: preset)
        try session.addOutput(copy)
        if paced {
            try await waitForPictures(copy, atLeast: 30)
            session.stop()
        }
        let result = await session.finished()
        #expect(paced || (result.stopReason == .maxDurationReached && result.videoFrames == 240), "\(result)")
        let copyResult = try #require(copy.result)
        #expect(result.recordedSuccessfully && copyResult.recordedSuccessfully, "\(result) \(copyResult)")
        let ownNumbers = try TestInputs.frameNumbers("\(folder)/own.mov")
        let copyNumbers = try TestInputs.frameNumbers("\(folder)/copy.mov")
        let ownPackets = try FFprobe.videoPackets("\(folder)/own.mov")
        let copyPackets = try FFprobe.videoPackets("\(folder)/copy.mov")
        #expect(contiguous(ownNumbers) && contiguous(copyNumbers), "\(ownNumbers) \(copyNumbers)")
        // The copy joined after the movie's first picture (two encoders started on one picture would make the
        // same bytes); from there on its pictures are the movie's, packet for packet.
        let start = try #require(ownNumbers.firstIndex(of: copyNumbers.first ?? -1), "\(ownNumbers) \(copyNumbers)")
        let overlap = min(copyNumbers.count, ownNumbers.count - start)
        #expect(start > 0 && overlap >= 30, "joined at the movie's picture \(start); \(overlap) pictures in both")
        #expect(Array(ownNumbers[start..<start + overlap]) == Array(copyNumbers.prefix(overlap)), "\(ownNumbers) \(copyNumbers)")
        #expect((0..<overlap).allSatisfy { ownPackets[start + $0].hash == copyPackets[$0].hash }, "the copy's pictures are the own movie's packets")
        let banners = (try Self.encoderBanners("\(folder)/own.mov"), try Self.encoderBanners("\(folder)/copy.mov"))
        #expect(banners.0 <= 1 && banners.1 == 0, "one encoder: \(banners)")
    }
}
