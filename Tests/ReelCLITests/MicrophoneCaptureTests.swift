import Foundation
import ReelTestSupport
import Testing

/// Real capture through libavdevice's ALSA input, without a sound card: an ALSA `file` PCM reads raw samples
/// from a FIFO that ffmpeg feeds at real time with a 1000 Hz tone. The movie must hold that tone.
@Suite(.serialized) struct MicrophoneCaptureTests {
    @Test func recordsATonePlayedIntoAnALSADevice() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let device = try FedALSADevice(folder: folder, seconds: 20)
        defer { device.stop() }
        let result = try Processes.run(
            Processes.reelExecutable,
            ["record", "mic.mov", "--video", "none", "--audio", device.spec, "--preset", "352x288", "--max-duration", "2", "--json"],
            currentDirectory: folder, environment: device.environment, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["stopReason"] as? String == "maxDurationReached")
        #expect((json["elapsed"] as? Double ?? 0) > 1.5, "the device delivers in real time")
        guard RealTimeChecks.make("duration and tone of a device read in real time") else { return }
        let movie = try MediaInspection(path: "\(folder)/mic.mov")
        #expect(movie.audioCodec == "aac" && movie.videoCodec == nil)
        #expect(abs(movie.audioDuration - 2) < 0.05, "audio \(movie.audioDuration) s")
        // Skip the first and last 0.1 s: the feeder's pipe may start mid-buffer, and AAC pads its last frame.
        let steady = Array(movie.audioPreview.dropFirst(4800).dropLast(4800))
        let frequency = ToneAnalysis.frequency(of: steady, sampleRate: movie.audioSampleRate)
        #expect(abs(frequency - 1000) < 10, "tone \(frequency) Hz")
    }

    /// A microphone whose clock runs 1.5 % fast against the system clock (the video's): it delivers 48,720
    /// samples a second as "48 kHz", so uncorrected its audio would run 0.18 s ahead of the video after 12 s.
    /// The ends of the tracks say nothing here (a stop lines them up); the tone does: its feeder plays 1000
    /// cycles a second of real time, so the cycles the audio holds up to the video's end are the real time
    /// the audio reached there. Video end minus that is the audio's lag, compared with an exact clock's run
    /// (the same kind of start-up offsets) within three video frames: the exact clock's own runs land 0 to 30 ms
    /// apart (where in its first buffer the feeder starts), which two frames (67 ms) left too little room for
    /// (70 ms seen once), while an uncorrected clock is 180 ms off. `make long-test` measures 10 minutes at
    /// 0.1 % fast.
    @Test func aFastAudioClockIsCompensated() throws {
        func lag(clockRate: Int) throws -> Double {
            let folder = try Scratch.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let device = try FedALSADevice(folder: folder, seconds: 30, clockRate: clockRate)
            defer { device.stop() }
            let running = try Processes.start(
                Processes.reelExecutable, ["record", "drift.mov", "--video", "lavfi:testsrc2", "--audio", device.spec,
                                           "--preset", "352x288", "--quiet"],
                currentDirectory: folder, environment: device.environment)
            #expect(Processes.waitForFile("\(folder)/drift.mov"), "the recording did not start")
            usleep(12_000_000)
            kill(running.process.processIdentifier, SIGINT)
            let result = Processes.finish(running, timeout: 20)
            #expect(result.status == 0, "\(result.standardError)")
            let path = "\(folder)/drift.mov"
            let samples = try SegmentInspection.playedMono(path, sampleRate: 48000)
            let cycles = ToneAnalysis.frequency(of: samples, sampleRate: 48000) * Double(samples.count) / 48000
            return try MediaInspection(path: path).videoDuration - cycles / 1000
        }
        let exact = try lag(clockRate: 48000)
        let fast = try lag(clockRate: 48720)
        guard RealTimeChecks.make("audio drift against the system clock") else { return }
        print("audio behind video at the end: exact clock \(exact) s, 1.5 % fast clock \(fast) s (uncorrected: 0.18 s more)")
        #expect(abs(fast - exact) < 3.0 / 30, "drift of \(fast - exact) s over 12 s")
    }

    /// The feeder freezes (SIGSTOP): the ALSA read blocks without consulting FFmpeg's interrupt callback.
    /// The engine notices the silence and ends with deviceLost after the device timeout (default and a
    /// configured one), with the audio so far in a playable file.
    @Test(arguments: [nil, 1.0] as [Double?])
    func aStalledDeviceEndsWithDeviceLost(timeout: Double?) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let device = try FedALSADevice(folder: folder, seconds: 30)
        defer { device.stop() }
        let running = try Processes.start(
            Processes.reelExecutable, ["record", "mic.mov", "--video", "none", "--audio", device.spec, "--preset", "352x288", "--json"]
                + (timeout.map { ["--device-timeout", "\($0)"] } ?? []),
            currentDirectory: folder, environment: device.environment)
        #expect(Processes.waitForFile("\(folder)/mic.mov"), "the recording did not start")
        // The device's reader runs at PulseAudio's nice level where permitted (root here in CI), so a busy
        // machine does not overrun the device's buffer; the rest of reel stays at the process's level.
        // The movie's file can appear before the session starts its readers: wait for the reader's thread
        // (named as it starts, raised by its first line).
        let expected = getuid() == 0 ? -11 : 0
        var nice = MicrophoneCaptureTests.threadNiceLevels(process: running.process.processIdentifier)
        let deadline = Date(timeIntervalSinceNow: 10)
        while nice["reel.reader.als"] != expected && Date() < deadline {
            usleep(20_000)
            nice = MicrophoneCaptureTests.threadNiceLevels(process: running.process.processIdentifier)
        }
        // (Linux keeps 15 bytes of a thread's name.)
        #expect(nice["reel.reader.als"] == expected, "\(nice)")
        #expect(nice.filter { $0.key.hasPrefix("reel.") && $0.key != "reel.reader.als" }.values.allSatisfy { $0 == 0 }, "\(nice)")
        usleep(1_500_000)
        device.freeze()
        let frozenAt = Date()
        let result = Processes.finish(running, timeout: 20)
        let endedAfter = Date().timeIntervalSince(frozenAt)
        // The stall is noticed within the timeout plus the engine's 0.1 s poll, and the ALSA buffer
        // (up to about half a second) delays the first missing sample.
        if RealTimeChecks.make("how soon the stall is noticed") {
            #expect(endedAfter > (timeout ?? 2) && endedAfter < (timeout ?? 2) + 2, "ended \(endedAfter) s after the freeze")
        }
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["stopReason"] as? String == "deviceLost")
        #expect((json["error"] as? String)?.contains("delivered nothing for \(String(format: "%g", timeout ?? 2)) s") == true,
                "\(json["error"] ?? "")")
        let movie = try MediaInspection(path: "\(folder)/mic.mov")
        #expect(movie.audioDuration > (RealTimeChecks.enabled ? 1 : 0), "audio before the stall is kept: \(movie.audioDuration) s")
    }

    /// Each thread's name (comm) and nice level (field 19 of /proc/PID/task/TID/stat).
    static func threadNiceLevels(process: Int32) -> [String: Int] {
        var levels: [String: Int] = [:]
        let tasks = "/proc/\(process)/task"
        for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let comm = try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "pid (comm) ": state is field 3, nice field 19.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 16, let nice = Int(fields[16]) {
                levels[comm.trimmingCharacters(in: .whitespacesAndNewlines)] = nice
            }
        }
        return levels
    }
}

/// An ALSA capture device without a sound card: an ALSA `file` PCM reading raw 48 kHz stereo samples from a
/// FIFO that ffmpeg feeds with a 1000 Hz tone at real time. The feeder opens the FIFO first: an ALSA file PCM
/// with no writer blocks in open(). `clockRate` other than 48000 makes a device whose clock runs fast or
/// slow: it delivers that many samples per second of real time while calling them 48 kHz. Its smallest
/// period is a sound card's (Tests/ALSAPeriod: 1024 frames), not the `null` PCM's one frame: libavdevice
/// reads one smallest period per packet, and 48,000 packets a second took most of a core from alsa-lib
/// alone (ffmpeg's reader the same), so a busy machine starved the reader and the FIFO backed up.
struct FedALSADevice {
    let spec = "alsa:reeltone"
    let environment: [String: String]
    private let feeder: Processes.Running

    init(folder: String, seconds: Int, clockRate: Int = 48000) throws {
        let fifo = "\(folder)/tone.fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw SetupError("mkfifo \(fifo) failed") }
        let configuration = "\(folder)/asound.conf"
        try """
            pcm.reeltone { type file slave.pcm "null" file "/dev/null" infile "\(fifo)" format "raw" }
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        // The feeder is the device's clock: with real-time scheduling (root, as in CI) it keeps time while the
        // rest of the suite loads both cores.
        let feed = ["/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i",
                    "sine=frequency=1000:sample_rate=\(clockRate)", "-t", String(seconds), "-ac", "2", "-f", "s16le", "-y", fifo]
        let command = getuid() == 0 ? ["/usr/bin/chrt", "-f", "10"] + feed : feed
        feeder = try Processes.start(command[0], Array(command.dropFirst()), discardOutput: true)
        let period = try PreloadLibrary.build("ALSAPeriod/alsaperiod.c", named: "alsaperiod", in: folder)
        environment = ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(configuration)", "LD_PRELOAD": period]
    }

    /// Stops feeding without closing the FIFO: reads from the device then block, as with a frozen device.
    func freeze() { kill(feeder.process.processIdentifier, SIGSTOP) }

    func stop() {
        kill(feeder.process.processIdentifier, SIGKILL)
        feeder.process.waitUntilExit()
    }
}
