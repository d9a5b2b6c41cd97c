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
    static func reel(_ arguments: [String], camera extra: String = "", modes: String = modes, in folder: String,
                     timeout: Double = 60) throws -> ProcessResult {
        try writeConfig(#"[{"path": "/dev/video0", "card": "Fake UVC Camera", "modes": \#(modes)\#(extra)}]"#, in: folder)
        return try Processes.run(Processes.reelExecutable, arguments, currentDirectory: folder,
                                 environment: try environment(in: folder), timeout: timeout)
    }

    /// The control values the emulated camera last received (written by the emulator after each change).
    static func controlState(in folder: String) throws -> [String: Int] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/state.json"))) as? [String: Any]
        let camera = (object?["cameras"] as? [[String: Any]])?.first
        return camera?["controls"] as? [String: Int] ?? [:]
    }

    static func writeConfig(_ cameras: String, in folder: String) throws {
        try #"{"cameras": \#(cameras)}"#.write(toFile: "\(folder)/cameras.json", atomically: true, encoding: .utf8)
    }

    static func environment(in folder: String) throws -> [String: String] {
        ["LD_PRELOAD": try library(), "FAKE_V4L2_CONFIG": "\(folder)/cameras.json", "FAKE_V4L2_STATE": "\(folder)/state.json"]
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
        // Its controls, named as v4l2-ctl names them, with ranges, menus, current values and inactive ones.
        let controls = try #require(cameras[0]["controls"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: controls.map { ($0["name"] as! String, $0) })
        for name in ["brightness", "white_balance_automatic", "auto_exposure", "focus_automatic_continuous", "focus_absolute",
                     "zoom_absolute", "torch_intensity"] {
            #expect(byName[name] != nil, "\(name) missing: \(byName.keys.sorted())")
        }
        #expect(byName["auto_exposure"]?["kind"] as? String == "menu")
        let menu = (byName["auto_exposure"]?["menu"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? "") \($0["name"] ?? "")" }
        #expect(menu == ["1 Manual Mode", "3 Aperture Priority Mode"], "\(menu)")
        #expect(byName["focus_absolute"]?["inactive"] as? Bool == true, "focus is automatic by default")
        #expect(byName["brightness"]?["value"] as? Int == 0 && byName["brightness"]?["minimum"] as? Int == -64)
        let listing = try Self.reel(["devices"], in: folder)
        #expect(listing.standardOutput.contains("auto_exposure (menu 1 Manual Mode, 3 Aperture Priority Mode, default 3) = 3"),
                "\(listing.standardOutput)")
    }

    /// The movie's picture numbers (the camera's sequence) against the result: each lost picture is counted
    /// in droppedFrames, and the picture before it fills its slot (duplicatedFrames). Returns the drops.
    static func checkCounted(_ json: [String: Any], movie: String, frames: Int) throws -> Int {
        let dropped = json["droppedFrames"] as? Int ?? -1, duplicated = json["duplicatedFrames"] as? Int ?? -1
        let numbers = try TestInputs.frameNumbers(movie)
        #expect(numbers.count == frames)
        let steps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        #expect(steps.filter { $0 == 0 }.count == duplicated && steps.reduce(0) { $0 + max(0, $1 - 1) } == dropped
                && steps.allSatisfy { $0 <= 1 + dropped }, "dropped \(dropped), duplicated \(duplicated): \(numbers)")
        // Each lost picture's slot shows the picture before it. More repeats come only from the camera: the
        // emulated one runs in the recording's process, so a busy machine (or a sanitizer) can keep it from
        // delivering in time after the freeze, and the movie fills those slots too (counted above, all of them).
        #expect(duplicated >= dropped, "dropped \(dropped), duplicated \(duplicated): \(numbers)")
        if duplicated > dropped { print("a busy machine: \(duplicated - dropped) slots repeated beyond the lost pictures, each counted") }
        return dropped
    }

    /// The reader frozen for a second (SIGSTOP, as a machine too busy to run it would): the camera fills its
    /// 16 buffers in half a second and drops the pictures after them (its sequence numbers jump). Every one is
    /// counted in droppedFrames and its slot shows the picture before it: the movie still lasts its 4 s.
    /// Before, the camera's drops were not counted (15 pictures missing, droppedFrames 0).
    /// Issue 27: a camera that gets stuck (the same picture, 1 s to 3 s) and then is capped (black, 3.5 s to
    /// 4.3 s) raises the frozen and black alarms at those times (±0.2 s), through the real V4L2 reader.
    @Test func aStuckThenCappedCameraRaisesItsAlarms() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "cam.mov", "--video", "v4l2:/dev/video0?input_format=yuyv422&video_size=640x480", "--audio", "none",
                                    "--preset", "352x288", "--max-duration", "5", "--alarm", "frozen:0.002:1", "--alarm", "black:0.1:0.5", "--json"],
                                   camera: #", "freezeFrom": 30, "freezeFrames": 60, "blackFrom": 105, "blackFrames": 24"#, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let alarms = try #require(try TestInputs.json(result.standardOutput)["alarms"] as? [[String: Any]], "\(result.standardOutput)")
        let expected: [(String, Double, Double)] = [("frozen", 1.0, 3.0), ("black", 3.5, 4.3)]
        #expect(alarms.count == 2, "\(alarms)")
        for (kind, start, end) in expected {
            let alarm = alarms.first { $0["kind"] as? String == kind }
            let (from, to) = (alarm?["start"] as? Double ?? -9, alarm?["end"] as? Double ?? -9)
            #expect(abs(from - start) <= 0.2 && abs(to - end) <= 0.2, "\(kind): \(from)–\(to), expected \(start)–\(end)")
        }
        #expect(result.standardError.contains("reel: alarm frozen since 00:01: the picture has not changed"), "\(result.standardError)")
    }

    @Test func aCameraThatDropsPicturesIsCounted() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeConfig(#"[{"path": "/dev/video0", "card": "Fake UVC Camera", "modes": \#(Self.modes)}]"#, in: folder)
        let running = try Processes.start(Processes.reelExecutable, ["record", "cam.mov", "--video", "v4l2:/dev/video0?input_format=yuyv422&video_size=640x480",
                                                                     "--audio", "none", "--preset", "352x288", "--max-duration", "4", "--json"],
                                          currentDirectory: folder, environment: try Self.environment(in: folder))
        #expect(Processes.waitForFile("\(folder)/cam.mov"), "the recording did not start")
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGSTOP)
        usleep(1_000_000)
        kill(running.process.processIdentifier, SIGCONT)
        let result = Processes.finish(running, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 120, "\(json)")
        let dropped = try Self.checkCounted(json, movie: "\(folder)/cam.mov", frames: 120)
        #expect(dropped >= 10, "about 15 pictures dropped by the camera: \(dropped)")
    }

    /// A camera whose first picture comes 1.5 s after the microphone's first sound (cameras can take that
    /// long to start): the movie starts with the picture, and its sound runs the whole duration with it.
    /// Before, the sound's limit (the duration and a second) counted from the sound's own start: the movie had
    /// 1.54 s of sound to 2 s of pictures, and the recording ended as inputEnded.
    @Test func aCameraThatStartsLateStillGetsItsFullSound() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "late.mov", "--video", "v4l2:/dev/video0?input_format=yuyv422&video_size=640x480",
                                    "--audio", "lavfi:sine", "--preset", "352x288", "--max-duration", "2", "--json"],
                                   camera: #", "startDelay": 1.5"#, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "maxDurationReached", "\(json)")
        let movie = try MediaInspection(path: "\(folder)/late.mov")
        #expect(movie.videoFrames == 60 && abs(movie.audioDuration - 2) < 0.05, "\(movie.videoFrames) frames, \(movie.audioDuration) s of sound")
    }

    /// The 720p preset negotiates MJPEG 1280x720 at 30 fps (not YUYV at 10): for 10 s every picture arrives, in
    /// order (frame numbers count modulo 256), none repeated, and none lost without being counted. A camera
    /// drops a picture when all its buffers still wait to be read (a reader starved on a busy machine); reel
    /// counts each one and the movie shows the picture before it in its slot, so the timeline holds (checked
    /// on purpose by aCameraThatDropsPicturesIsCounted). On an idle machine there are none.
    @Test func recordsEveryFrameOfAnMJPEGCameraInOrder() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "cam.mov", "--video", "v4l2:/dev/video0", "--audio", "lavfi:sine",
                                    "--preset", "720p", "--max-duration", "10", "--json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 300, "\(json)")
        let dropped = try Self.checkCounted(json, movie: "\(folder)/cam.mov", frames: 300)
        if dropped > 0 { print("a busy machine: \(dropped) pictures dropped, each counted") }
        let movie = try MediaInspection(path: "\(folder)/cam.mov")
        #expect(movie.width == 1280 && movie.height == 720 && abs(movie.audioDuration - movie.videoDuration) < 1.0 / 30)
        // The microphone beside the camera starts with the first picture: the tracks' starts (after their edit
        // lists) within one frame.
        let starts = try ["video", "audio"].map { type -> Double in
            let stream = try FFprobe.stream("\(folder)/cam.mov", type: type)
            return Double(stream?["start_time"] as? String ?? "") ?? .nan
        }
        #expect(abs(starts[0] - starts[1]) < 1.0 / 30, "video starts at \(starts[0]) s, audio at \(starts[1]) s")
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
        let packets = try TestInputs.videoPacketTimes("\(folder)/slow.mov")
        #expect(packets.count == 90 && numbers.count == 90)
        for (index, packet) in packets.enumerated() {
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

    /// A spec with a libavdevice option Reel does not handle itself (here `timestamps`) is read through
    /// libavdevice's v4l2 demuxer instead of Reel's own reader: the same pictures, in order.
    @Test func aLibavdeviceOptionReadsThroughLibavdevice() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "dev.mov", "--video", "v4l2:/dev/video0?input_format=mjpeg&video_size=1280x720&framerate=30&timestamps=abs",
                                    "--audio", "none", "--preset", "720p", "--max-duration", "1", "--json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 30 && json["droppedFrames"] as? Int == 0, "\(json)")
        let numbers = try TestInputs.frameNumbers("\(folder)/dev.mov")
        #expect(numbers.count == 30 && zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 == 1 }, "\(numbers)")
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

    /// --camera-control gives the camera its values before the first frame, in order (autofocus off, then the
    /// lens position; manual exposure, then the exposure time; the torch), as the device itself records.
    @Test func cameraControlsReachTheCamera() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let settings = ["focus_automatic_continuous=false", "focus_absolute=120", "auto_exposure=1", "exposure_time_absolute=100",
                        "torch_intensity=100", "brightness=-10", "power_line_frequency=50 Hz"]
        let result = try Self.reel(["record", "lit.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                    "--max-duration", "0.5"] + settings.flatMap { ["--camera-control", $0] }, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let state = try Self.controlState(in: folder)
        #expect(state["focus_automatic_continuous"] == 0 && state["focus_absolute"] == 120, "\(state)")
        #expect(state["auto_exposure"] == 1 && state["exposure_time_absolute"] == 100, "\(state)")
        #expect(state["torch_intensity"] == 100 && state["brightness"] == -10 && state["power_line_frequency"] == 1, "\(state)")
        #expect(try MediaInspection(path: "\(folder)/lit.mov").videoFrames == 15)
    }

    /// --restore-controls gives the camera back what it had once the recording ends; without it the values stay.
    @Test func controlsAreRestoredWhenAsked() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let base = ["record", "r.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p", "--max-duration", "0.3",
                    "--overwrite", "--camera-control", "focus=manual:0.5", "--camera-control", "brightness=20"]
        #expect(try Self.reel(base, in: folder).status == 0)
        var state = try Self.controlState(in: folder)
        #expect(state["brightness"] == 20 && state["focus_absolute"] == 125 && state["focus_automatic_continuous"] == 0, "\(state)")
        let restored = try Self.reel(base + ["--restore-controls"], in: folder)
        #expect(restored.status == 0, "\(restored.standardError)")
        state = try Self.controlState(in: folder)
        #expect(state["brightness"] == 0 && state["focus_automatic_continuous"] == 1 && state["focus_absolute"] == 0, "\(state)")
    }

    /// Controls change while recording (the library's CaptureSession.setCameraControls, driven from a process
    /// of its own so the emulator can be preloaded): the camera receives them mid-recording, no frame is lost,
    /// a bad name is a usage error naming what the camera offers, and with restoring the camera gets back
    /// what it had before the session changed it.
    @Test func controlsChangeWhileRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let driver = URL(fileURLWithPath: Processes.reelExecutable).deletingLastPathComponent().appendingPathComponent("reel-test-driver").path
        try Self.writeConfig(#"[{"path": "/dev/video0", "card": "Fake UVC Camera", "modes": \#(Self.modes)}]"#, in: folder)
        let run = try Processes.run(driver, ["camera-controls-while-recording", "\(folder)/live.mov", "torch=on", "focus=manual:0.5",
                                             "--restore"], environment: try Self.environment(in: folder), timeout: 60)
        #expect(run.status == 0, "\(run.standardError)")
        let report = try TestInputs.json(run.standardOutput)
        let during = ((report["during"] as? [String: Any])?["cameras"] as? [[String: Any]])?.first?["controls"] as? [String: Int] ?? [:]
        #expect(during["torch_intensity"] == 100 && during["focus_automatic_continuous"] == 0 && during["focus_absolute"] == 125,
                "the camera holds the new values while recording: \(during)")
        let refusal = report["refusal"] as? String ?? ""
        #expect(refusal.hasPrefix("invalidInput:") && refusal.contains("no_such_control") && refusal.contains("focus_absolute"), "\(refusal)")
        #expect(report["recordedSuccessfully"] as? Bool == true && report["droppedFrames"] as? Int == 0, "\(report)")
        let frames = report["videoFrames"] as? Int ?? 0
        #expect(frames >= 50 && frames <= 70, "about 2 s at 30 fps: \(frames)")
        let numbers = try TestInputs.frameNumbers("\(folder)/live.mov")
        #expect(numbers.count == frames && Set(numbers) == Set(numbers.first!...numbers.last!), "no picture lost: \(numbers)")
        let after = try Self.controlState(in: folder)
        #expect(after["torch_intensity"] == 0 && after["focus_automatic_continuous"] == 1 && after["focus_absolute"] == 0,
                "given back at the end: \(after)")
    }

    /// The seeds' front/back switch over the control socket (issue 16): two emulated cameras, the recording
    /// switches from one to the other and back; each camera's own frame count shows where it took over, the
    /// movie has one picture per frame interval throughout, and `camera-control` reaches the camera that is
    /// recording now.
    @Test func switchingCamerasOverTheControlSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeConfig(#"[{"path": "/dev/video0", "card": "Back Camera", "modes": \#(Self.modes)}, {"path": "/dev/video1", "card": "Front Camera", "modes": \#(Self.modes)}]"#, in: folder)
        let running = try Processes.start(Processes.reelExecutable, [
            "record", "flip.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "352x288", "--size", "64x64",
            "--control", "flip.sock", "--json", "--quiet"], currentDirectory: folder, environment: try Self.environment(in: folder))
        #expect(Processes.waitForFile("\(folder)/flip.sock", seconds: 20))
        usleep(1_200_000)
        let ctl = { (arguments: [String]) throws -> ProcessResult in try Processes.reel(["ctl", "flip.sock"] + arguments, currentDirectory: folder) }
        #expect(try ctl(["switch-video", "v4l2:/dev/video1"]).status == 0)
        let torch = try ctl(["camera-control", "torch=on"])
        #expect(torch.status == 0, "\(torch.standardError)")
        usleep(1_000_000)
        #expect(try ctl(["switch-video", "v4l2:/dev/video0"]).status == 0)
        usleep(800_000)
        #expect(try ctl(["stop"]).status == 0)
        let result = Processes.finish(running, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "stopped" && json["droppedFrames"] as? Int == 0, "\(json)")
        // Each camera numbers its own frames from when it was opened: the numbers jump twice.
        let numbers = try TestInputs.frameNumbers("\(folder)/flip.mov")
        let jumps = zip(numbers, numbers.dropFirst()).enumerated().filter { ($0.element.1 - $0.element.0 + 256) % 256 != 1 }
        #expect(jumps.count == 2, "two switches: \(jumps.map { "\($0.offset): \($0.element.0)→\($0.element.1)" })")
        let packets = try TestInputs.videoPacketTimes("\(folder)/flip.mov")
        #expect(packets.count == json["videoFrames"] as? Int)
        for (index, packet) in packets.enumerated() { #expect(abs(packet.time - Double(index) / 30) < 1e-4, "packet \(index) at \(packet.time)") }
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/state.json"))) as? [String: Any]
        let cameras = state?["cameras"] as? [[String: Any]] ?? []
        let torches = cameras.map { ($0["path"] as? String ?? "?", ($0["controls"] as? [String: Int])?["torch_intensity"] ?? -1) }
        #expect(torches.contains { $0.0 == "/dev/video1" && $0.1 == 100 } && !torches.contains { $0.0 == "/dev/video0" && $0.1 == 100 },
                "the torch of the front camera (recording then) is on: \(torches)")
    }

    /// `reel serve` on real V4L2 code paths (issue 17): the page's camera list, torch and focus through the
    /// HTTP API reach the camera recording, the front/back switch, a photo from the camera.
    @Test func servingTwoCamerasOverHTTP() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeConfig(#"[{"path": "/dev/video0", "card": "Back Camera", "modes": \#(Self.modes)}, {"path": "/dev/video1", "card": "Front Camera", "modes": \#(Self.modes)}]"#, in: folder)
        let port = try LiveServers.freePort()
        let running = try Processes.start(Processes.reelExecutable, [
            "serve", "--listen", "127.0.0.1:\(port)", "--recordings", "rec", "--video", "v4l2:/dev/video0", "--audio", "none",
            "--preset", "352x288"], currentDirectory: folder, environment: try Self.environment(in: folder))
        let client = HTTPTestClient(port: port)
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? client.request("GET", "/api/status", timeout: 2))?.object["running"] as? Bool == true
            if !ready { usleep(200_000) }
        }
        #expect(ready, "reel serve did not start the camera")
        let devices = try client.request("GET", "/api/devices").object
        let cameras = devices["cameras"] as? [[String: Any]] ?? []
        #expect(cameras.compactMap { $0["name"] as? String } == ["Back Camera", "Front Camera"], "\(cameras)")
        #expect(try client.request("POST", "/api/camera-control", body: #"{"settings": ["torch=on", "focus=locked"]}"#).status == 200)
        #expect(try Self.controlState(in: folder)["torch_intensity"] == 100)
        let switched = try client.request("POST", "/api/session/switch", body: #"{"video": "v4l2:/dev/video1"}"#)
        #expect(switched.status == 200, "\(switched.text)")
        #expect(try client.request("POST", "/api/camera-control", body: #"{"settings": ["torch=on"]}"#).status == 200)
        let photo = try client.request("POST", "/api/photo").object
        let name = try #require(photo["name"] as? String, "\(photo)")
        #expect(try FFprobe.streams("\(folder)/rec/\(name)").first?["width"] as? Int == 352)
        let unknown = try client.request("POST", "/api/camera-control", body: #"{"settings": ["warp_drive=9"]}"#)
        #expect(unknown.status == 400 && (unknown.object["error"] as? String)?.contains("torch") == true, "the error names what the camera offers: \(unknown.text)")
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/state.json"))) as? [String: Any]
        let torches = (state?["cameras"] as? [[String: Any]] ?? []).map { ($0["path"] as? String ?? "?", ($0["controls"] as? [String: Int])?["torch_intensity"] ?? -1) }
        #expect(torches.contains { $0 == ("/dev/video1", 100) } && torches.contains { $0 == ("/dev/video0", 100) }, "\(torches)")
    }

    /// The AVFoundation-like names: focus, exposure, white balance, torch and zoom as the camera receives them.
    @Test func convenienceSettingsReachTheCamera() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let settings = ["focus=manual:0.5", "exposure=manual:0.01", "white_balance=5000", "torch=on", "zoom=2"]
        let result = try Self.reel(["snap", "s.jpg", "--video", "v4l2:/dev/video0", "--skip-frames", "0"]
                                   + settings.flatMap { ["--camera-control", $0] }, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let state = try Self.controlState(in: folder)
        #expect(state["focus_automatic_continuous"] == 0 && state["focus_absolute"] == 125, "\(state)")
        #expect(state["auto_exposure"] == 1 && state["exposure_time_absolute"] == 100, "\(state)")
        #expect(state["white_balance_automatic"] == 0 && state["white_balance_temperature"] == 5000, "\(state)")
        #expect(state["torch_intensity"] == 100 && state["zoom_absolute"] == 200, "\(state)")
    }

    /// A control the camera does not have, a value outside its range or menu, or a lens position while
    /// autofocus is on: one line naming what would work, exit 2, nothing recorded.
    @Test(arguments: [
        ("nosuch=1", "it offers brightness"),
        ("brightness=999", "from -64 to 64"),
        ("focus_absolute=7", "in steps of 5"),
        ("auto_exposure=2", "1 (Manual Mode), 3 (Aperture Priority Mode)"),
        ("white_balance_automatic=maybe", "true or false"),
        ("focus_absolute=100", "focus_automatic_continuous=0 before focus_absolute"),
        ("brightness", "NAME=VALUE"),
    ])
    func badCameraControlsAreOneClearLine(_ setting: String, _ mentions: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "bad.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--max-duration", "1",
                                    "--camera-control", setting], in: folder)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardError.contains(mentions),
                "\(result.standardError)")
        #expect(!Scratch.files(in: folder).contains("bad.mov"))
    }

    /// `high` takes the largest mode that keeps 30 fps (MJPEG 1280x720 at 30 over 1920x1080 at 15).
    @Test func highPicksTheLargestModeThatKeepsThirtyFramesASecond() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let modes = #"[{"format": "MJPG", "size": "1920x1080", "fps": 15}, {"format": "MJPG", "size": "1280x720", "fps": 30}, {"format": "YUYV", "size": "640x480", "fps": 30}]"#
        let result = try Self.reel(["record", "high.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "high",
                                    "--max-duration", "1", "--json"], modes: modes, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 30 && json["duplicatedFrames"] as? Int == 0, "30 fps delivered: \(json)")
        let movie = try MediaInspection(path: "\(folder)/high.mov")
        #expect(movie.width == 1280 && movie.height == 720, "\(movie.width)x\(movie.height)")
    }

    /// A 4:3 camera without the preset's size is scaled and pillarboxed into 1280x720, never stretched.
    @Test func aCameraWithoutThePresetSizeIsFittedWithBars() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "fit.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                    "--max-duration", "1"], modes: #"[{"format": "YUYV", "size": "640x480", "fps": 30}]"#,
                                   in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        // Picture 18 (its left half 22 + 13 x 2 = 48, well above black): 640x480 fitted into 1280x720 is
        // 960x720 at x = 160, so columns 0..159 and 1120..1279 are black bars.
        let raw = "\(folder)/frame.yuv"
        try TestInputs.ffmpeg(["-ss", "0.6", "-i", "\(folder)/fit.mov", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        let luma = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let row = 360 * 1280
        #expect(luma[row + 40] <= 20 && luma[row + 1240] <= 20, "bars: \(luma[row + 40]) \(luma[row + 1240])")
        #expect(luma[row + 400] > 30, "picture: \(luma[row + 400])")
    }

    /// A camera that stays open but stops delivering ends the recording with deviceLost after the timeout.
    @Test func aStalledCameraEndsWithDeviceLost() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        let result = try Self.reel(["record", "stalled.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                    "--max-duration", "30", "--device-timeout", "1", "--json"], camera: #", "stallAfter": 30"#,
                                   in: folder)
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "deviceLost" && json["videoFrames"] as? Int == 30, "\(json)")
        #expect(try CleanDecode.problems(in: "\(folder)/stalled.mov").isEmpty)
    }

    /// A node that is not a capture device (a UVC metadata node) is one clear line and exit 2.
    @Test func aNodeThatCannotCaptureIsOneClearLine() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.reel(["record", "meta.mov", "--video", "v4l2:/dev/video0", "--audio", "none", "--max-duration", "1"],
                                   camera: #", "capture": false"#, in: folder)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardError.contains("v4l2:/dev/video0"),
                "\(result.standardError)")
        #expect(Scratch.files(in: folder) == ["cameras.json"])
    }

    /// Two cameras, two recordings at once in two processes: each gets all of its own pictures.
    @Test func twoCamerasInTwoProcesses() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mode = #"[{"format": "YUYV", "size": "640x480", "fps": 30}]"#
        try Self.writeConfig(#"[{"path": "/dev/video0", "card": "Front", "modes": \#(mode)}, {"path": "/dev/video1", "card": "Back", "modes": \#(mode)}]"#,
                             in: folder)
        let environment = try Self.environment(in: folder)
        let runs = try ["0", "1"].map { index in
            try Processes.start(Processes.reelExecutable, ["record", "cam\(index).mov", "--video", "v4l2:/dev/video\(index)",
                                                           "--audio", "none", "--preset", "352x288", "--max-duration", "2", "--json"],
                                currentDirectory: folder, environment: environment)
        }
        for (index, run) in runs.enumerated() {
            let result = Processes.finish(run, timeout: 30)
            #expect(result.status == 0, "camera \(index): \(result.standardError)")
            let json = try TestInputs.json(result.standardOutput)
            #expect(json["videoFrames"] as? Int == 60 && json["droppedFrames"] as? Int == 0, "camera \(index): \(json)")
            let numbers = try TestInputs.frameNumbers("\(folder)/cam\(index).mov")
            #expect(numbers.count == 60, "camera \(index): \(numbers.count) frames decoded")
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 == 1 }, "camera \(index): \(numbers)")
        }
    }

    /// Tap and hold from the camera: a short press keeps the first frame as a photo, a long one the movie.
    @Test func tapAndHoldFromTheCamera() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tap = try Self.reel(["capture", "tap", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                 "--max-duration", "0.3", "--json"], in: folder)
        #expect(tap.status == 0, "\(tap.standardError)")
        #expect(try TestInputs.json(tap.standardOutput)["kind"] as? String == "photo")
        #expect(try TestInputs.frameNumbers("\(folder)/tap.jpg") == [0], "the first frame")
        let hold = try Self.reel(["capture", "hold", "--video", "v4l2:/dev/video0", "--audio", "none", "--preset", "720p",
                                  "--max-duration", "1.5", "--json"], in: folder)
        #expect(hold.status == 0, "\(hold.standardError)")
        #expect(try TestInputs.json(hold.standardOutput)["kind"] as? String == "movie")
        #expect(try MediaInspection(path: "\(folder)/hold.mov").videoFrames == 45)
        #expect(Scratch.files(in: folder).sorted() == ["cameras.json", "hold.mov", "tap.jpg"])
    }
}
