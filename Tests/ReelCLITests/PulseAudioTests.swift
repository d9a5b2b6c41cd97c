import Foundation
import ReelTestSupport
import Testing

/// Issue 18 (part): recording from a real PulseAudio server, started by the test: a null sink whose monitor is
/// the source, a 1000 Hz tone played into the sink. Then the server is killed mid-recording.
@Suite(.serialized) struct PulseAudioTests {
    /// A PulseAudio server of the test's own (no configuration, no D-Bus), on a socket in a scratch folder.
    /// It is started as a daemon through the shell, not as a Foundation Process: pulseaudio closes the
    /// descriptors it inherits, and Foundation takes the closing of the one it gives a child as the child's
    /// exit and then waits for it for good.
    struct PulseServer {
        let folder: String
        let pid: pid_t
        var environment: [String: String] { ["PULSE_SERVER": "unix:\(folder)/native", "XDG_RUNTIME_DIR": folder] }

        static func start() throws -> PulseServer {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") else {
                throw SetupError("pulseaudio is not installed: run the tests through `make test`, which installs it")
            }
            let folder = try Scratch.folder("reel-pulse")
            let started = try Processes.shell("XDG_RUNTIME_DIR=\(folder) /usr/bin/pulseaudio -n --daemonize=yes --exit-idle-time=-1 "
                + "--use-pid-file=yes -L 'module-native-protocol-unix socket=\(folder)/native auth-anonymous=1' "
                + "-L 'module-null-sink sink_name=reeltest rate=48000' 2>&1", timeout: 20)
            guard started.status == 0, Processes.waitForFile("\(folder)/native", seconds: 10),
                  let text = try? String(contentsOfFile: "\(folder)/pulse/pid", encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw SetupError("pulseaudio did not start: \(started.standardOutput)")
            }
            return PulseServer(folder: folder, pid: pid)
        }

        /// Plays a tone into the null sink in real time (what a program playing sound does).
        func playTone(seconds: Int) throws -> Processes.Running {
            try Processes.start("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
                                                    "-t", String(seconds), "-f", "pulse", "-device", "reeltest", "reel-test-tone"],
                                environment: environment, discardOutput: true)
        }

        func stop() {
            kill(pid, SIGKILL)
            for _ in 0..<100 where kill(pid, 0) == 0 && !((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") ?? true) {
                usleep(20_000)
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// 100 ms windows of a recording's sound that are not silent, and their zero-crossing frequencies.
    static func toneWindows(_ path: String) throws -> [Double] {
        let samples = try TestInputs.monoSamples(path, sampleRate: 48000)
        return stride(from: 0, to: samples.count - 4800, by: 4800).compactMap { start in
            let window = Array(samples[start..<(start + 4800)])
            guard (window.map { abs($0) }.max() ?? 0) > 0.05 else { return nil }
            return ToneAnalysis.frequency(of: window, sampleRate: 48000)
        }
    }

    @Test func recordsFromAPulseAudioSource() throws {
        let server = try PulseServer.start()
        defer { server.stop() }
        let tone = try server.playTone(seconds: 20)
        defer { kill(tone.process.processIdentifier, SIGKILL) }
        usleep(500_000)
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.run(Processes.reelExecutable, ["record", "pulse.mov", "--video", "none", "--audio", "pulse:reeltest.monitor",
                                                                   "--max-duration", "3", "--json"],
                                       currentDirectory: folder, environment: server.environment, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["audioSamples"] as? Int == 144_000 && json["audioDevice"] as? String == "pulse:reeltest.monitor", "\(json)")
        // The tone, in nearly every 100 ms (a player that underruns on a loaded machine leaves short silences),
        // at its pitch: within 10 Hz (the count of zero crossings in 100 ms is good to 5 Hz). The clock-drift
        // correction once took PulseAudio's unsettled timestamps at the start for drift: 975-985 Hz.
        let windows = try Self.toneWindows("\(folder)/pulse.mov")
        let onTone = windows.filter { abs($0 - 1000) <= 10 }.count
        #expect(windows.count >= 20 && Double(onTone) >= 0.8 * Double(windows.count), "windows: \(windows)")
    }

    /// Issue 27: a PulseAudio microphone is metered as captured (FFmpeg's sine, 1/8 of full scale: peak -18.1 dBFS,
    /// through a null sink at 100 %), and when the tone stops the silence alarm starts, still on at the end.
    @Test func aMicrophonesLevelsAndItsSilence() throws {
        let server = try PulseServer.start()
        defer { server.stop() }
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tone = try server.playTone(seconds: 30)
        defer { kill(tone.process.processIdentifier, SIGKILL) }
        let recording = try Processes.start(Processes.reelExecutable, ["record", "mic.mov", "--video", "none", "--audio", "pulse:reeltest.monitor",
                                                                       "--max-duration", "30", "--alarm", "silence:-60:1", "--control", "mic.sock", "--json"],
                                            currentDirectory: folder, environment: server.environment)
        defer { kill(recording.process.processIdentifier, SIGKILL) }
        #expect(Processes.waitForFile("\(folder)/mic.sock", seconds: 20))
        func ctl(_ words: String...) throws -> [String: Any]? {
            let run = try Processes.run(Processes.reelExecutable, ["ctl", "mic.sock"] + words + ["--json"], currentDirectory: folder, timeout: 20)
            return try? TestInputs.json(run.standardOutput)
        }
        // Once the sound flows (the player's stream takes a moment to start, longer on a busy machine: the
        // recording may begin in silence), and has for a second.
        var peaks: [Double] = []
        var soundSince: Double?
        let deadline = Date(timeIntervalSinceNow: 15)
        while Date() < deadline {
            let levels = try ctl("levels")
            if let time = levels?["time"] as? Double, let channels = levels?["channels"] as? [[String: Any]] {
                let now = channels.map { $0["peak"] as? Double ?? -999 }
                if !now.isEmpty && now.allSatisfy({ $0 > -40 }) {
                    soundSince = soundSince ?? time
                    if time - soundSince! >= 1 { peaks = now; break }
                } else {
                    soundSince = nil
                }
            }
            usleep(200_000)
        }
        #expect(!peaks.isEmpty && peaks.allSatisfy { abs($0 - -18.06) <= 1 }, "the tone's peak per channel: \(peaks)")
        // The tone stops: the silence alarm starts a second later, dated when the sound stopped.
        let stoppedAt = try ctl("status")?["timeline"] as? Double ?? -1
        kill(tone.process.processIdentifier, SIGKILL)
        usleep(2_500_000)
        #expect(try Processes.run(Processes.reelExecutable, ["ctl", "mic.sock", "stop"], currentDirectory: folder, timeout: 20).status == 0)
        let result = Processes.finish(recording, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let alarms = try TestInputs.json(result.standardOutput)["alarms"] as? [[String: Any]] ?? []
        // The last alarm is the silence after the tone, still on at the end; one before it may be the silence
        // before the player's sound arrived, over by the time the sound had flowed for a second.
        let last = alarms.last
        #expect(last?["kind"] as? String == "silence" && last?["end"] == nil, "\(alarms)")
        #expect(alarms.dropLast().allSatisfy { ($0["end"] as? Double ?? .infinity) <= (soundSince ?? 0) + 0.1 } && alarms.count <= 2,
                "only a silence before the sound came precedes it (sound from \(soundSince ?? -1) s): \(alarms)")
        let start = last?["start"] as? Double ?? 0
        // The tone is killed after `ctl status` returns (a process to start and end): the silence begins then.
        #expect(start >= stoppedAt - 0.2 && start <= stoppedAt + 2.4, "the silence began when the tone stopped (\(stoppedAt)): \(start)")
    }

    @Test func aPulseAudioServerThatDiesEndsWithDeviceLostAndAPlayableFile() throws {
        let server = try PulseServer.start()
        let tone = try server.playTone(seconds: 20)
        defer { kill(tone.process.processIdentifier, SIGKILL) }
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable, ["record", "lost.mov", "--video", "none", "--audio", "pulse:reeltest.monitor",
                                                                     "--json"], currentDirectory: folder, environment: server.environment)
        #expect(Processes.waitForFile("\(folder)/lost.mov", seconds: 20))
        usleep(1_500_000)
        server.stop()
        let stoppedAt = Date()
        let result = Processes.finish(running, timeout: 20)
        #expect(Date().timeIntervalSince(stoppedAt) < 5, "the loss must end the recording within seconds")
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "deviceLost" && json["recordedSuccessfully"] as? Bool == true, "\(json)")
        #expect((json["error"] as? String)?.contains("pulse:reeltest.monitor") == true)
        let movie = try MediaInspection(path: "\(folder)/lost.mov")
        #expect(movie.audioDuration > 1 && movie.audioCodec == "aac")
        #expect(try CleanDecode.problems(in: "\(folder)/lost.mov").isEmpty)
    }
}
