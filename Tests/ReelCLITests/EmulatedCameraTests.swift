import Foundation
import ReelTestSupport
import Testing

/// Issue 13, first milestone: V4L2 capture end to end through libavdevice, on an emulated camera
/// (Tests/FakeCamera: an LD_PRELOAD library answering the V4L2 ioctls on /dev/videoN with real, numbered
/// frames). The product code is untouched; only the kernel below it is emulated.
@Suite(.serialized) struct EmulatedCameraTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardizedFileURL.path

    /// The emulator library, built by `make fake-camera` (which `make test` runs first; built here if missing).
    static func library() throws -> String {
        let path = "\(repository)/.build/fake-camera/libfakev4l2.so"
        if !FileManager.default.fileExists(atPath: path) {
            let build = try Processes.shell("make -C '\(repository)' fake-camera 2>&1", timeout: 120)
            guard build.status == 0 else { throw PictureComparison.SetupFailure("make fake-camera: \(build.standardOutput)") }
        }
        return path
    }

    static let modes = #"[{"format": "MJPG", "size": "1280x720", "fps": 30}, {"format": "YUYV", "size": "1280x720", "fps": 10}, {"format": "YUYV", "size": "640x480", "fps": 30}]"#

    /// Runs reel with one emulated camera at /dev/video0 (`extra` adds fields to its configuration).
    static func reel(_ arguments: [String], camera extra: String = "", in folder: String, timeout: Double = 60) throws -> ProcessResult {
        let config = "\(folder)/cameras.json"
        try #"{"cameras": [{"path": "/dev/video0", "card": "Fake UVC Camera", "modes": \#(modes)\#(extra)}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        return try Processes.run(Processes.reelExecutable, arguments, currentDirectory: folder,
                                 environment: ["LD_PRELOAD": try library(), "FAKE_V4L2_CONFIG": config], timeout: timeout)
    }

    @Test func devicesListsTheCameraAndItsModes() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["devices", "--json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let cameras = try #require(json["cameras"] as? [[String: Any]])
        #expect(cameras.count == 1, "\(cameras)")
        let text = "\(cameras)"
        for mode in ["MJPG", "YUYV", "1280", "640"] { #expect(text.contains(mode), "\(mode) missing: \(text)") }
    }

    /// The 720p preset negotiates MJPEG 1280x720 at 30 fps (not YUYV at 10): every picture arrives, in order,
    /// none repeated, none dropped.
    @Test func recordsEveryFrameOfAnMJPEGCameraInOrder() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "cam.mov", "--video", "v4l2:/dev/video0", "--audio", "lavfi:sine",
                                    "--preset", "720p", "--max-duration", "3", "--json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 90 && json["droppedFrames"] as? Int == 0 && json["duplicatedFrames"] as? Int == 0,
                "\(json)")
        let numbers = try TestInputs.frameNumbers("\(folder)/cam.mov")
        #expect(numbers.count == 90)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 == 1 }, "\(numbers)")
        let movie = try MediaInspection(path: "\(folder)/cam.mov")
        #expect(movie.width == 1280 && movie.height == 720 && abs(movie.audioDuration - movie.videoDuration) < 1.0 / 30)
    }

    /// A camera slower than it claims (27 fps for 30): the movie stays at a constant 30 fps, the repeats counted.
    @Test func aSlowCameraGivesConstantFrameRateWithRepeatsCounted() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "slow.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                    "--max-duration", "3", "--json"], camera: #", "fpsActual": 27"#, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        let duplicated = json["duplicatedFrames"] as? Int ?? -1
        #expect(json["videoFrames"] as? Int == 90 && (6...12).contains(duplicated), "\(json)")
        let numbers = try TestInputs.frameNumbers("\(folder)/slow.mov")
        #expect(zip(numbers, numbers.dropFirst()).filter { $0 == $1 }.count == duplicated)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 <= 1 }, "no picture skipped: \(numbers)")
        for (index, packet) in try TestInputs.videoPacketTimes("\(folder)/slow.mov").enumerated() {
            #expect(abs(packet.time - Double(index) / 30) < 1e-4, "packet \(index) at \(packet.time)")
        }
    }

    /// snap skips its 15 warm-up frames (auto-exposure settling): the picture is frame 15.
    @Test func snapSkipsTheWarmUpFrames() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["snap", "s.png", "--video", "v4l2:/dev/video0", "--preset", "720p"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/s.png") == [15])
    }

    /// Pulled out mid-recording: deviceLost within the timeout, and the file keeps what came before.
    @Test func anUnpluggedCameraEndsWithDeviceLostAndAPlayableFile() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        let result = try Self.reel(["record", "pulled.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                    "--max-duration", "30", "--fragment-interval", "1", "--json"], camera: #", "unplugAfter": 2.0"#,
                                   in: folder)
        #expect(Date().timeIntervalSince(started) < 10, "the loss is noticed in seconds")
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "deviceLost", "\(json)")
        let frames = json["videoFrames"] as? Int ?? 0
        #expect((45...62).contains(frames), "about 2 s of pictures: \(frames)")
        #expect(try CleanDecode.problems(in: "\(folder)/pulled.mov").isEmpty)
        #expect(try TestInputs.frameNumbers("\(folder)/pulled.mov").count == frames)
    }

    /// A camera another program holds (EBUSY) is one clear line and exit 2, nothing written.
    @Test func aBusyCameraIsOneClearLine() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "busy.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--max-duration", "1"],
                                   camera: #", "busy": true"#, in: folder)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardError.contains("v4l2:/dev/video0"),
                "\(result.standardError)")
        #expect(Scratch.files(in: folder) == ["cameras.json"])
    }
}
