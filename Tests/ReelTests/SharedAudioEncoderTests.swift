import Foundation
import FFmpegCore
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Movies of one preset from one capture encode once: a tier at the main movie's preset takes the same
/// encoder's pictures (SharedVideoEncoder) and the main movie's AAC packets (SharedAudioEncoder) — the same
/// bytes in both files, verified by ffprobe's packet hashes —, decodes whole and encodes no sound; a tier that
/// differs (its own size limit, another preset) encodes its own.
@Suite struct SharedAudioEncoderTests {
    /// Each video packet of a movie as ffprobe reads it: presentation and decode times, flags and an MD5
    /// of its bytes.
    static func packets(_ path: String, stream: String = "v") throws -> [String] {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_packets", "-show_data_hash", "md5",
                                                          "-show_entries", "packet=pts,dts,flags,data_hash", "-of", "csv=p=0", path])
        #expect(probe.status == 0, "\(probe.standardError)")
        return probe.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func aTierAtTheMainPresetTakesTheMainMoviesPackets() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try FastRecording.configuration("\(folder)/main.mov", preset: "352x288", limits: RecordingLimits(maxDuration: 2),
                                                            video: try DeviceSpec(parsing: "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0"))
        let preset = try PresetLibrary.preset(named: "352x288")
        var small = preset
        (small.video.width, small.video.height) = (128, 96)
        configuration.tiers = [MovieTier(outputPath: "\(folder)/copy.mov", preset: preset),
                               MovieTier(outputPath: "\(folder)/small.mov", preset: small),
                               MovieTier(outputPath: "\(folder)/capped.mov", preset: preset, maxFileSize: 50_000_000)]
        let result = try await FastRecording.record(configuration)
        let outputs = try #require(result.outputs)
        #expect(outputs.allSatisfy { $0.recordedSuccessfully && $0.videoFrames == 60 }, "\(outputs.map { "\($0.output): \($0.videoFrames) \($0.error ?? "")" })")
        let main = try Self.packets("\(folder)/main.mov")
        #expect(main.count == 60)
        #expect(try Self.packets("\(folder)/copy.mov") == main, "the copy holds the main movie's packets, byte for byte")
        let mainAudio = try Self.packets("\(folder)/main.mov", stream: "a")
        let copyAudio = try Self.packets("\(folder)/copy.mov", stream: "a")
        #expect(mainAudio.count > 90 && copyAudio == mainAudio, "and its sound's")
        // The copy's pictures are the main movie's encoder's: its packets (above) and one x264 banner (below).
        // Each movie reports its encoder's thread time as it finishes (the shared one's read at two moments, so
        // not compared); how much CPU that took is the machine's: 60 small pictures took 9.6 ms on one CI run,
        // so only "some" is asserted.
        let encode = outputs.map { $0.stages?.encodeVideo ?? -1 }
        #expect(encode.allSatisfy { $0 > 0 }, "\(encode)")
        #expect(try MovieOutputSharingTests.encoderBanners("\(folder)/copy.mov") == 1, "one encoder made the copy's pictures")
        let encodeAudio = outputs.map { $0.stages?.encodeAudio ?? -1 }
        #expect(encodeAudio[0] > 0 && encodeAudio[1] == 0 && encodeAudio[3] > 0, "\(encodeAudio)")
        // And it plays as the main movie does: every picture, in order, and its sound.
        #expect(try TestInputs.frameNumbers("\(folder)/copy.mov") == (try TestInputs.frameNumbers("\(folder)/main.mov")))
        #expect(try CleanDecode.problems(in: "\(folder)/copy.mov").isEmpty)
        #expect(outputs[1].audioSamples == outputs[0].audioSamples)
    }

    /// Segments cut at the same frames in both, each file starting with the same keyframe.
    @Test func segmentedCopiesCutAtTheSameFrames() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try FastRecording.configuration("\(folder)/main-{index}.mov", preset: "352x288", limits: RecordingLimits(maxDuration: 2.5))
        configuration.segmentation = Segmentation(duration: 1)
        configuration.tiers = [MovieTier(outputPath: "\(folder)/copy-{index}.mov", preset: try PresetLibrary.preset(named: "352x288"))]
        let result = try await FastRecording.record(configuration)
        let outputs = try #require(result.outputs)
        #expect(outputs.map { $0.segments?.map(\.videoFrames) ?? [] } == [[30, 30, 15], [30, 30, 15]], "\(outputs)")
        #expect(outputs[1].stages?.encodeAudio == 0, "the copy's sound is the main movie's")
        for index in 1...3 {
            let main = try Self.packets("\(folder)/main-00\(index).mov")
            #expect(!main.isEmpty && main.first?.contains("K") == true, "segment \(index) starts with a keyframe")
            #expect(try Self.packets("\(folder)/copy-00\(index).mov") == main, "segment \(index)")
            let (mainAudio, copyAudio) = (try Self.packets("\(folder)/main-00\(index).mov", stream: "a"),
                                          try Self.packets("\(folder)/copy-00\(index).mov", stream: "a"))
            #expect(!mainAudio.isEmpty && copyAudio == mainAudio, "segment \(index)'s sound")
        }
    }

    /// The grouping rule: equal keys share, any difference that moves a keyframe or an end does not.
    @Test func onlyMoviesThatRecordAlikeShare() throws {
        let preset = try PresetLibrary.preset(named: "352x288")
        func setup(_ path: String, preset: Preset = preset, limits: RecordingLimits = RecordingLimits(), rendition: Int = 0) -> MovieRecorder.Setup {
            MovieRecorder.Setup(temporaryPath: path, fragmentInterval: 10, fragmentMemoryLimit: 1 << 20, outputPath: path, folder: "movies",
                                preset: preset, limits: limits, rotation: 0, hasVideo: true, rendition: rendition,
                                videoColour: .unspecified, hasAudio: true, captureAudio: (48_000, 2), timelineFromInputStart: false,
                                videoDevice: nil, audioDevice: nil, inputDuration: nil)
        }
        var renamed = preset
        renamed.name = "my-copy"
        var otherRate = preset
        otherRate.video.fps = 25
        var otherSound = preset
        otherSound.audio.bitRate /= 2
        var setups = [setup("movies/a.mov"), setup("movies/b.mov", preset: renamed), setup("movies/c.mov", limits: RecordingLimits(maxFileSize: 1 << 30)),
                      setup("movies/d.mov", preset: otherRate), setup("movies/e.mov", rendition: 1),
                      setup("movies/f.mov", preset: otherSound), setup("movies/g.mov")]
        SharedAudioEncoder.assignRoles(&setups, count: 6)
        func role(_ index: Int) -> String {
            switch setups[index].sharedAudio {
            case .owner?: "owner"
            case .follower(_, let number)?: "follower \(number)"
            case nil: "own"
            }
        }
        // g is past `count` (a MovieOutput, which may pause or stop alone): not in a group (it subscribes to a
        // SharedVideoEncoder when the session runs it, and encodes its own sound).
        #expect((0..<7).map(role) == ["owner", "follower 0", "own", "own", "own", "own", "own"])
    }

    static func packets(_ count: Int) -> [Packet] { (0..<count).map { _ in Packet() } }

    /// A follower that stops taking (its disk stalls) is let go once it is `maximumLag` packets behind: nothing
    /// more is kept for it, its next take ends its movie, and the other follower goes on.
    @Test func aFollowerThatFallsTooFarBehindIsLetGo() throws {
        let shared = SharedAudioEncoder(followers: 2, sessionStart: nil)
        for _ in 0..<SharedAudioEncoder.maximumLag {
            _ = shared.publishAudio(segment: 1, Self.packets(1))
            _ = try shared.takeAudio(segment: 1, follower: 1, waitForEnd: false)
        }
        #expect(shared.heldPackets == SharedAudioEncoder.maximumLag, "all kept for the stalled follower so far")
        #expect(try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.count == SharedAudioEncoder.maximumLag)
        for _ in 0...SharedAudioEncoder.maximumLag {
            _ = shared.publishAudio(segment: 1, Self.packets(1))
            _ = try shared.takeAudio(segment: 1, follower: 1, waitForEnd: false)
        }
        #expect(shared.heldPackets <= 1, "nothing kept for the follower let go")
        #expect(throws: ReelError.self) { try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false) }
        _ = shared.publishAudio(segment: 1, Self.packets(1))
        #expect(try shared.takeAudio(segment: 1, follower: 1, waitForEnd: false).packets.count == 1)
    }

    /// Of unpaced inputs the owner waits for a follower `maximumLag` behind (nothing is lost by waiting).
    @Test func anOwnerOfUnpacedInputsWaitsForItsFollower() throws {
        let shared = SharedAudioEncoder(followers: 1, sessionStart: nil, ownerWaits: true)
        for _ in 0..<SharedAudioEncoder.maximumLag { _ = shared.publishAudio(segment: 1, Self.packets(1)) }
        let published = Locked(0)
        let owner = WorkerThread(name: "reel.test.owner") {
            _ = shared.publishAudio(segment: 1, Self.packets(1))
            published.withLock { $0 += 1 }
        }
        usleep(100_000)
        #expect(published.withLock { $0 } == 0, "the owner waits while its follower is maximumLag behind")
        #expect(try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.count == SharedAudioEncoder.maximumLag)
        owner.join()
        #expect(published.withLock { $0 } == 1)
        #expect(try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.count == 1)
    }

    /// The hand-over itself, without encoders: each follower takes each packet once and in order, with the
    /// segment's end; a follower learns (an error, not a hang) when the owner ended first.
    @Test func followersTakeEachPacketOnceAndLearnWhenTheOwnerEndedFirst() throws {
        let shared = SharedAudioEncoder(followers: 2, sessionStart: nil)
        _ = shared.publishAudio(segment: 1, Self.packets(2))
        let early = try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false)
        #expect(early.packets.count == 2 && !early.ended)
        _ = shared.publishAudio(segment: 1, Self.packets(1))
        shared.endedAudio(segment: 1)
        let last = try shared.takeAudio(segment: 1, follower: 0, waitForEnd: false)
        #expect(last.packets.count == 1 && last.ended, "the segment's last packets come with its end")
        #expect(try shared.takeAudio(segment: 1, follower: 1, waitForEnd: true).packets.count == 3)

        // A follower that left (its movie finished early: its own file failed) holds nothing back.
        let twice = SharedAudioEncoder(followers: 2, sessionStart: nil)
        twice.leave(follower: 1)
        _ = twice.publishAudio(segment: 1, Self.packets(4))
        _ = twice.publishAudio(segment: 2, Self.packets(2))
        #expect(twice.heldPackets == 6)
        _ = try twice.takeAudio(segment: 1, follower: 0, waitForEnd: false)
        #expect(twice.heldPackets == 6, "follower 0's last handout waits for its next call")
        _ = try twice.takeAudio(segment: 1, follower: 0, waitForEnd: false)
        #expect(twice.heldPackets == 2, "nothing is kept for the follower that left")
        twice.leave(follower: 0)
        #expect(twice.heldPackets == 0)
        let alone = SharedAudioEncoder(followers: 1, sessionStart: nil)
        alone.leave(follower: 0)
        _ = alone.publishAudio(segment: 1, Self.packets(3))
        #expect(alone.heldPackets == 0, "with no follower left, the owner's packets are not kept at all")

        // Packets the followers are done with come back to the owner for reuse, never one a follower was
        // handed last: it may still be writing it until its next call.
        let reuse = SharedAudioEncoder(followers: 1, sessionStart: nil)
        let first = Packet(), second = Packet()
        #expect(reuse.publishAudio(segment: 1, [first]).isEmpty)
        #expect(try reuse.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.first === first)
        #expect(reuse.publishAudio(segment: 1, [second]).isEmpty, "the packet just handed out is still in use")
        #expect(try reuse.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.first === second)
        #expect(reuse.publishAudio(segment: 1, [Packet()]).first === first, "the one before is the owner's again")

        let ended = SharedAudioEncoder(followers: 1, sessionStart: nil)
        _ = ended.publishAudio(segment: 1, Self.packets(1))
        ended.ownerFinished(reason: .failed)
        #expect(try ended.takeAudio(segment: 1, follower: 0, waitForEnd: false).packets.count == 1)
        #expect(throws: ReelError.self) { try ended.waitForAudioEncoder(segment: 2) }
        #expect(throws: ReelError.self) { try ended.takeAudio(segment: 1, follower: 0, waitForEnd: true) }

        // The owner's file reached the free-space floor first: the follower ends there with the same reason.
        let floor = SharedAudioEncoder(followers: 1, sessionStart: nil)
        floor.ownerFinished(reason: .diskSpaceLimitReached)
        #expect {
            try floor.takeAudio(segment: 1, follower: 0, waitForEnd: true)
        } throws: { ($0 as? SharedAudioEncoder.OwnerStopped)?.reason == .diskSpaceLimitReached }
    }
}

/// The tests' shorthand for several packets at once and a fresh handout list per take.
extension SharedAudioEncoder {
    /// Publishes each packet in turn; returns the spare packets given back for them.
    func publishAudio(segment index: Int, _ packets: [Packet]) -> [Packet] {
        packets.compactMap { publishAudio(segment: index, $0) }
    }

    func takeAudio(segment index: Int, follower: Int, waitForEnd: Bool) throws -> (packets: [Packet], ended: Bool) {
        var packets: [Packet] = []
        let ended = try takeAudio(segment: index, follower: follower, waitForEnd: waitForEnd, into: &packets)
        return (packets, ended)
    }
}
