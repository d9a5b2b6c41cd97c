import Foundation
import ReelTestSupport
import Testing

/// Issue 16: driving a running `reel record --control` over its socket with `reel ctl` and raw clients.
@Suite(.serialized) struct ControlSocketTests {
    static func ctl(_ arguments: [String], in folder: String) throws -> ProcessResult {
        try Processes.reel(["ctl"] + arguments, currentDirectory: folder, timeout: 40)
    }

    static func startRecording(_ arguments: [String], socket: String, in folder: String) throws -> Processes.Running {
        let running = try Processes.start(Processes.reelExecutable, ["record"] + arguments + ["--control", socket, "--json", "--quiet"],
                                          currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/\(socket)", seconds: 20), "the control socket did not appear")
        return running
    }

    /// Switches lavfi red → blue → the X screen (green) → none (black) → red while recording, and the sound
    /// from 440 Hz to 1000 Hz; then a photo and a stop over the socket. The movie has one picture per frame
    /// interval throughout, in runs of the expected sources and about the expected lengths.
    @Test func switchingPhotoAndStopOverTheSocket() throws {
        let display = try VirtualDisplay.start()
        defer { display.stop() }
        try #require(try Processes.shell("DISPLAY=:\(display.number) xsetroot -solid '#00ff00'").status == 0)
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startRecording(["take.mov", "--video", "lavfi:color=red", "--audio", "lavfi:sine=frequency=440",
                                               "--preset", "352x288", "--size", "64x64", "--fragment-interval", "0"],
                                              socket: "take.sock", in: folder)
        usleep(1_000_000)
        // When each video switch had taken over (its reply came back), to compare the runs with.
        var videoSwitched: [Date] = []
        for (command, pause) in [(["switch-video", "lavfi:color=blue"], 0), (["switch-audio", "lavfi:sine=frequency=1000:sample_rate=44100"], 1_000_000),
                                 (["switch-video", "x11grab::\(display.number)"], 1_000_000), (["switch-video", "none"], 700_000),
                                 (["switch-video", "lavfi:color=red"], 700_000)] {
            let reply = try Self.ctl(["take.sock"] + command, in: folder)
            #expect(reply.status == 0, "\(command): \(reply.standardError)")
            if command[0] == "switch-video" { videoSwitched.append(Date()) }
            usleep(useconds_t(pause))
        }
        let status = try Self.ctl(["take.sock", "status", "--json"], in: folder)
        let state = try TestInputs.json(status.standardOutput)
        #expect(state["state"] as? String == "recording" && state["video"] as? String == "lavfi:color=red", "\(status.standardOutput)")
        #expect((state["audio"] as? String)?.contains("1000") == true)
        let photo = try Self.ctl(["take.sock", "photo", "shot.jpg"], in: folder)
        #expect(photo.status == 0 && photo.standardOutput.contains("shot.jpg"), "\(photo.standardError)")
        #expect(try SourceColours.name(SourceColours.meanColours("\(folder)/shot.jpg")[0]) == "red")
        let stop = try Self.ctl(["take.sock", "stop"], in: folder)
        #expect(stop.status == 0, "\(stop.standardError)")
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "stopped" && json["droppedFrames"] as? Int == 0, "\(json)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/take.sock"), "the socket is removed at the end")
        let path = "\(folder)/take.mov"
        let runs = try SourceColours.runs(path)
        #expect(runs.map(\.name) == ["red", "blue", "green", "black", "red"], "\(runs)")
        let counts = runs.map(\.count)
        // Each source lasts from its switch to the next, to within a few frames (a reply reaches the test a
        // few milliseconds after the switch; `reel ctl` then has to exit: up to 0.2 s on a loaded machine).
        let expected = zip(videoSwitched, videoSwitched.dropFirst()).map { Int(($1.timeIntervalSince($0) * 30).rounded()) }
        #expect(counts.count == 5 && zip(counts[1...3], expected).allSatisfy { abs($0 - $1) <= 6 }, "runs \(runs), expected \(expected)")
        let packets = try TestInputs.videoPacketTimes(path)
        #expect(packets.count == json["videoFrames"] as? Int)
        for (index, packet) in packets.enumerated() { #expect(abs(packet.time - Double(index) / 30) < 1e-4, "packet \(index) at \(packet.time)") }
        // The sound's pitch follows its switch; it covers the video to within a frame.
        let movie = try MediaInspection(path: path)
        // Audio and video end together: a stop lines their ends up (the audio the edit list plays: decoding
        // also yields the last AAC frame's padding).
        let played = Double(try SegmentInspection.playedAudioSamples(path)) / 48000
        #expect(abs(played - movie.videoDuration) < 1e-3, "audio \(played) s, video \(movie.videoDuration) s")
        let samples = try TestInputs.monoSamples(path, sampleRate: 48000)
        let switchAt = Double(counts[0]) / 30
        #expect(abs(ToneAnalysis.frequency(of: Array(samples[Int((switchAt - 0.6) * 48000)..<Int((switchAt - 0.2) * 48000)]), sampleRate: 48000) - 440) < 10)
        #expect(abs(ToneAnalysis.frequency(of: Array(samples[Int((switchAt + 0.5) * 48000)..<Int((switchAt + 0.9) * 48000)]), sampleRate: 48000) - 1000) < 10)
    }

    /// Issue 24, item 13: `ctl photo NAME` puts a relative NAME beside the recording, as `ctl --help` says,
    /// not in the folder reel was started from.
    @Test func aRelativePhotoGoesBesideTheRecording() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: "\(folder)/rec", withIntermediateDirectories: true)
        let running = try Self.startRecording(["rec/take.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--preset", "low"],
                                              socket: "take.sock", in: folder)
        let photo = try Self.ctl(["take.sock", "photo", "shot.jpg"], in: folder)
        #expect(photo.status == 0, "\(photo.standardError)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/rec/shot.jpg"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/shot.jpg"))
        #expect(try Self.ctl(["take.sock", "stop"], in: folder).status == 0)
        #expect(Processes.finish(running, timeout: 20).status == 0)
    }

    /// A photo over the socket is a picture the movie also holds, and the movie loses none around it.
    @Test func aPhotoOverTheSocketCostsTheMovieNoFrame() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startRecording(["numbers.mov", "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))",
                                               "--audio", "none", "--preset", "352x288", "--size", "64x64", "--max-duration", "3"],
                                              socket: "n.sock", in: folder)
        usleep(1_000_000)
        let photo = try Self.ctl(["n.sock", "photo", "\(folder)/n.png"], in: folder)
        #expect(photo.status == 0, "\(photo.standardError)")
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        let numbers = try TestInputs.frameNumbers("\(folder)/numbers.mov")
        let shot = try #require(try TestInputs.frameNumbers("\(folder)/n.png").first)
        #expect(numbers.contains(shot), "the photo \(shot) is a picture of the movie")
        #expect(numbers.count == 90 && zip(numbers, numbers.dropFirst()).allSatisfy { ($1 - $0 + 256) % 256 == 1 })
    }

    /// Garbage, huge lines, malformed JSON, unknown commands and missing arguments each get one error reply
    /// and the connection stays; several clients at once; a client that never reads is dropped once 1 MiB
    /// waits for it, and the recording drops nothing meanwhile.
    @Test func theSocketSurvivesBadClients() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startRecording(["fuzz.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "low"],
                                              socket: "fuzz.sock", in: folder)
        let script = #"""
            import json, os, random, socket, sys, time
            path = sys.argv[1]
            def connect():
                s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(10); return s, s.makefile("rb")
            def ask(s, f, raw):
                s.sendall(raw); return json.loads(f.readline())
            s, f = connect()
            random.seed(7)
            errors = 0
            for n in range(50):
                junk = bytes(random.randrange(256) for _ in range(random.randrange(1, 200))).replace(b"\n", b"")
                reply = ask(s, f, junk + b"\n"); errors += reply["error"] != "success"
            reply = ask(s, f, b"x" * 200000 + b"\n"); assert "longer than" in reply["error"], reply
            for bad in [b'{"command": "status"}', b'{"command": ["dance"], "request_id": 3}', b'{"command": ["photo"]}', b'{"command": []}', b'[1,2']:
                reply = ask(s, f, bad + b"\n"); assert reply["error"] != "success", (bad, reply); errors += 1
            assert ask(s, f, b'{"command": ["status"], "request_id": 9}\n') == ask(s, f, b'{"command": ["status"], "request_id": 9}\n') or True
            reply = ask(s, f, b'{"command": ["status"], "request_id": 9}\n'); assert reply["error"] == "success" and reply["request_id"] == 9, reply
            clients = [connect() for _ in range(8)]
            for c, cf in clients:
                c.sendall(b'{"command": ["status"], "request_id": 1}\n')
            assert all(json.loads(cf.readline())["error"] == "success" for c, cf in clients)
            # A client that asks and never reads: dropped once 1 MiB of replies waits for it.
            greedy = socket.socket(socket.AF_UNIX); greedy.connect(path); greedy.setblocking(False)
            sent, dropped = 0, False
            request = b'{"command": ["subscribe"], "request_id": 1}\n' * 100
            deadline = time.time() + 20
            while time.time() < deadline and not dropped:
                try:
                    greedy.send(request); sent += 1
                except BlockingIOError:
                    time.sleep(0.01)
                except (BrokenPipeError, ConnectionResetError):
                    dropped = True
            assert dropped, "the greedy client was not dropped"
            reply = ask(s, f, b'{"command": ["status"], "request_id": 10}\n'); assert reply["error"] == "success", reply
            print("errors", errors)
            """#
        try script.write(toFile: "\(folder)/fuzz.py", atomically: true, encoding: .utf8)
        let fuzz = try Processes.run("/usr/bin/python3", ["\(folder)/fuzz.py", "\(folder)/fuzz.sock"], timeout: 60)
        #expect(fuzz.status == 0, "\(fuzz.standardOutput) \(fuzz.standardError)")
        #expect(fuzz.standardOutput.contains("errors 55"), "every bad request got an error: \(fuzz.standardOutput)")
        #expect(try Self.ctl(["fuzz.sock", "stop"], in: folder).status == 0)
        let result = Processes.finish(running, timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "stopped" && json["droppedFrames"] as? Int == 0, "\(json)")
    }

    /// Socket paths: a live one is refused (exit 2, nothing recorded), a stale one left by a crash is
    /// replaced, another file is refused; `reel ctl` says when nothing listens (exit 2) and when the
    /// recording refuses a command (exit 1).
    @Test func socketPathsAndCtlExitCodes() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try Processes.shell("cd \(folder) && python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('stale.sock')\"").status == 0)
        let running = try Self.startRecording(["a.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--preset", "low"],
                                              socket: "stale.sock", in: folder)
        usleep(300_000)
        let mode = try FileManager.default.attributesOfItem(atPath: "\(folder)/stale.sock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try Processes.reel(["record", "b.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--control", "stale.sock"],
                                        currentDirectory: folder)
        #expect(second.status == 2 && second.standardError.contains("another recording listens"), "\(second.standardError)")
        _ = FileManager.default.createFile(atPath: "\(folder)/plain", contents: Data("x".utf8))
        let third = try Processes.reel(["record", "c.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--control", "plain"],
                                       currentDirectory: folder)
        #expect(third.status == 2 && third.standardError.contains("not a socket"), "\(third.standardError)")
        let refused = try Self.ctl(["stale.sock", "switch-audio", "lavfi:sine"], in: folder)
        #expect(refused.status == 1 && refused.standardError.contains("no audio track"), "\(refused.standardError)")
        let missing = try Self.ctl(["stale.sock", "switch-video", "v4l2:/dev/reel-no-such-camera"], in: folder)
        #expect(missing.status == 1 && missing.standardError.contains("goes on with lavfi:testsrc2"), "\(missing.standardError)")
        let usage = try Self.ctl(["stale.sock", "dance"], in: folder)
        #expect(usage.status == 2)
        #expect(try Self.ctl(["stale.sock", "stop"], in: folder).status == 0)
        #expect(Processes.finish(running, timeout: 20).status == 0)
        let nobody = try Self.ctl(["stale.sock", "status"], in: folder)
        #expect(nobody.status == 2 && nobody.standardError.contains("no recording listens"), "\(nobody.standardError)")
        #expect(Scratch.files(in: folder) == ["a.mov", "plain"])
    }

    /// The socket's path appears only once it accepts connections (a client that waits for the file, as
    /// scripts and the benchmarks do, connects at once): its listen made slow (Tests/SlowListen: 500 ms between
    /// bind and listen, as on a busy machine), the first connect the moment the path exists succeeds, and the
    /// recording answers it. Before, the file was the bound socket's, refusing connections until it listened.
    @Test func theSocketAppearsOnlyOnceItListens() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let slow = try PreloadLibrary.build("SlowListen/slowlisten.c", named: "slowlisten", in: folder)
        let running = try Processes.start(Processes.reelExecutable,
                                          ["record", "a.mov", "--video", "lavfi:testsrc2", "--audio", "none", "--preset", "low",
                                           "--control", "ctl.sock", "--json", "--quiet"],
                                          currentDirectory: folder, environment: ["LD_PRELOAD": slow, "REEL_SLOW_LISTEN_MS": "500"])
        var appeared = false
        for _ in 0..<2000 where !appeared {
            appeared = FileManager.default.fileExists(atPath: "\(folder)/ctl.sock")
            if !appeared { usleep(5_000) }
        }
        #expect(appeared, "the control socket did not appear")
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array("\(folder)/ctl.sock".utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(connected == 0, "connect as the path appeared: \(String(cString: strerror(errno)))")
        let status = try Self.ctl(["ctl.sock", "status"], in: folder)
        #expect(status.status == 0, "\(status.standardError)")
        #expect(try Self.ctl(["ctl.sock", "stop"], in: folder).status == 0)
        #expect(Processes.finish(running, timeout: 20).status == 0)
        #expect(Scratch.files(in: folder).filter { !$0.hasSuffix(".so") } == ["a.mov"], "no hidden socket left")
    }

    /// 100 switches (video and audio, some while paused) in a recording with segments and a tier: no file
    /// descriptor is left open and memory stays flat; every movie's timeline stays whole.
    @Test func aHundredSwitchesLeakNothing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tier = try TierTests.tierPreset(in: folder)
        let running = try Self.startRecording(["many.mov", "--video", "lavfi:color=red", "--audio", "lavfi:sine", "--preset", "352x288",
                                               "--size", "64x64", "--tier", "\(tier):tier.mov", "--segment-duration", "4"],
                                              socket: "many.sock", in: folder)
        let pid = running.process.processIdentifier
        let script = #"""
            import json, os, socket, sys, time
            path, pid = sys.argv[1], sys.argv[2]
            s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(20); f = s.makefile("rb")
            n = 0
            def ask(*command):
                global n
                n += 1
                s.sendall(json.dumps({"command": list(command), "request_id": n}).encode() + b"\n")
                while True:
                    reply = json.loads(f.readline())
                    if reply.get("request_id") == n:
                        assert reply["error"] == "success", (command, reply)
                        return reply
            def usage():
                # Movie files come and go with the segments (two are open for a moment at each boundary).
                fds = sum(1 for fd in os.listdir(f"/proc/{pid}/fd") if not os.readlink(f"/proc/{pid}/fd/{fd}").endswith(".mov"))
                rss = next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS"))
                return fds, rss
            videos = ["lavfi:color=blue", "lavfi:color=red", "none"]
            audios = ["lavfi:sine=frequency=1000:sample_rate=44100", "lavfi:sine", "none"]
            def switch(i):
                ask("switch-video", videos[i % 3])
                if i % 4 == 0: ask("switch-audio", audios[i % 3])
                if i % 25 == 10: ask("pause")
                if i % 25 == 15: ask("resume")
            for i in range(10): switch(i)
            time.sleep(0.5)
            before = usage()
            for i in range(10, 110): switch(i)
            time.sleep(0.5)
            after = usage()
            print(json.dumps({"before": before, "after": after}))
            """#
        try script.write(toFile: "\(folder)/many.py", atomically: true, encoding: .utf8)
        let client = try Processes.run("/usr/bin/python3", ["\(folder)/many.py", "\(folder)/many.sock", "\(pid)"], timeout: 120)
        #expect(client.status == 0, "client: \(client.standardOutput) \(client.standardError)")
        #expect(try Self.ctl(["many.sock", "stop"], in: folder).status == 0)
        let result = Processes.finish(running, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let usage = try TestInputs.json(client.standardOutput)
        let before = usage["before"] as? [Int] ?? [], after = usage["after"] as? [Int] ?? []
        #expect(before.count == 2 && after.count == 2)
        #expect(after.first == before.first, "file descriptors before and after 100 switches: \(before) → \(after)")
        if RealTimeChecks.make("memory stays flat (a sanitizer's shadow memory grows with every allocation)") {
            #expect((after.last ?? 0) - (before.last ?? 0) < 8 * 1024, "RSS (KiB) before and after 100 switches: \(before) → \(after)")
        }
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["stopReason"] as? String == "stopped" && json["droppedFrames"] as? Int == 0, "\(json)")
        // Every movie (segments of the main one, the tier) has one picture per frame interval.
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.count >= 2)
        for path in segments.map({ $0["output"] as! String }) + ["\(folder)/tier-001.mov"] {
            let packets = try TestInputs.videoPacketTimes(path)
            #expect(!packets.isEmpty)
            for (index, packet) in packets.enumerated() where abs(packet.time - Double(index) / 30) > 1e-4 {
                Issue.record("\(path): packet \(index) at \(packet.time): \(packets[max(0, index - 3)..<min(packets.count, index + 3)].map(\.time))")
                break
            }
            #expect(try CleanDecode.problems(in: path).isEmpty, "\(path) decodes cleanly")
        }
    }

    /// A tap-or-hold capture and a batch record job listen on control sockets too: `stop` over the socket
    /// ends the press (a movie, held long enough) and the job.
    @Test func captureAndBatchJobsTakeAControlSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let press = try Processes.start(Processes.reelExecutable, ["capture", "shot", "--video", "lavfi:testsrc2=size=160x120", "--audio", "none",
                                                                   "--preset", "low", "--control", "press.sock", "--json"],
                                        currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/press.sock", seconds: 20))
        usleep(1_500_000)
        #expect(try Self.ctl(["press.sock", "status"], in: folder).standardOutput.hasPrefix("recording"))
        #expect(try Self.ctl(["press.sock", "stop"], in: folder).status == 0)
        let pressed = Processes.finish(press, timeout: 20)
        #expect(pressed.status == 0, "\(pressed.standardError)")
        #expect(try TestInputs.json(pressed.standardOutput)["kind"] as? String == "movie")
        try #"{"jobs": [{"name": "cam", "type": "record", "video": "lavfi:testsrc2", "audio": "none", "preset": "low", "maxDuration": 60, "output": "{name}.mov", "control": "{name}.sock"}]}"#
            .write(toFile: "\(folder)/jobs.json", atomically: true, encoding: .utf8)
        let batch = try Processes.start(Processes.reelExecutable, ["batch", "jobs.json", "--json", "--quiet"], currentDirectory: folder)
        #expect(Processes.waitForFile("\(folder)/cam.sock", seconds: 20))
        usleep(1_000_000)
        #expect(try Self.ctl(["cam.sock", "stop"], in: folder).status == 0)
        let report = Processes.finish(batch, timeout: 20)
        #expect(report.status == 0, "\(report.standardError)")
        let job = (try TestInputs.json(report.standardOutput)["jobs"] as? [[String: Any]])?.first
        #expect(job?["status"] as? String == "succeeded" && (job?["result"] as? [String: Any])?["stopReason"] as? String == "stopped", "\(job ?? [:])")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/cam.sock"))
    }

    /// Issue 27: `reel ctl SOCKET levels` gives the sound's levels per channel (JSON and a line each), and
    /// `watch --json` the levels events ten a second.
    @Test func levelsOverTheSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Self.startRecording(["take.mov", "--video", "lavfi:testsrc2=size=64x64", "--audio",
                                               "lavfi:aevalsrc=0.125*sin(2*PI*1000*t)|0:s=48000", "--preset", "352x288", "--size", "64x64"],
                                              socket: "take.sock", in: folder)
        usleep(1_000_000)
        let reply = try Self.ctl(["take.sock", "levels", "--json"], in: folder)
        #expect(reply.status == 0, "\(reply.standardError)")
        let levels = try TestInputs.json(reply.standardOutput)
        let channels = try #require(levels["channels"] as? [[String: Any]], "\(reply.standardOutput)")
        #expect(channels.count == 2 && (levels["time"] as? Double ?? 0) > 0.5)
        let (peak, rms) = (channels[0]["peak"] as? Double ?? 0, channels[0]["rms"] as? Double ?? 0)
        #expect(abs(peak - -18.06) <= 0.5 && abs(rms - -21.07) <= 0.5, "\(channels[0])")
        #expect(channels[1]["peak"] is NSNull && channels[1]["rms"] is NSNull, "silence is null: \(channels[1])")
        let text = try Self.ctl(["take.sock", "levels"], in: folder).standardOutput
        #expect(text.hasPrefix("L  peak -18.") && text.contains("\nR  peak -inf  rms -inf"), "\(text)")
        // Events: levels come with the others to a subscriber, about ten a second.
        let watcher = try Processes.start(Processes.reelExecutable, ["ctl", "take.sock", "watch", "--json"], currentDirectory: folder)
        usleep(1_200_000)
        #expect(try Self.ctl(["take.sock", "stop"], in: folder).status == 0)
        let watched = Processes.finish(watcher, timeout: 20).standardOutput
        let count = watched.components(separatedBy: "\n").filter { $0.hasPrefix("{\"event\":\"levels\"") }.count
        #expect(count >= 6, "\(count) levels events in 1.2 s")
        #expect(Processes.finish(running, timeout: 20).status == 0)
    }
}
