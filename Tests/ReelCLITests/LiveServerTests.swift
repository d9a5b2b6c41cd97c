import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 26: `--live srt://…` and `--live rtmp://…` push the movie's packets to real servers started here on
/// loopback (srt-live-transmit, nginx with its RTMP module): what they receive is the movie's pictures; a
/// server that dies, a network that stalls and then resets, or a refused stream key never touch the movie.
@Suite struct LiveServerTests {
    static let numbered = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))?realtime=0",
                           "--audio", "lavfi:sine=frequency=440?realtime=0", "--preset", "352x288", "--size", "64x64", "--json"]
    /// The same, paced by the clock as a camera is (a server can die while it records).
    static let pacedNumbered = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))",
                                "--audio", "lavfi:sine=frequency=440", "--preset", "352x288", "--size", "64x64", "--json"]

    static func live(_ json: [String: Any]) throws -> [String: Any] {
        try #require((json["live"] as? [[String: Any]])?.first)
    }

    /// `part` appears in `whole` as one run, in order.
    static func isContiguousRun(_ part: [Int], of whole: [Int]) -> Bool {
        guard !part.isEmpty, part.count <= whole.count else { return false }
        return (0...(whole.count - part.count)).contains { Array(whole[$0..<($0 + part.count)]) == part }
    }

    @Test func srtListenerReceivesTheMoviesPicturesAndSound() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listener = try SRTListener(output: folder + "/received.ts")
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "10", "--live", listener.url + "?latency=120"]
                                        + LiveServerTests.numbered, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(listener.finish()?.status == 0, "the listener ends when Reel hangs up")
        #expect(result.standardError.contains("reel: live stream \(listener.url)?latency=120 connected"), "\(result.standardError)")
        let live = try LiveServerTests.live(try TestInputs.json(result.standardOutput))
        #expect(live["kind"] as? String == "srt" && live["error"] == nil && live["reconnects"] as? Int == 0)
        #expect(live["droppedPackets"] as? Int == 0 && live["droppedGOPs"] as? Int == 0 && live["gaps"] as? Int == 0)
        // Every byte Reel counted as sent arrived (libsrt's linger keeps the socket until the end is acknowledged).
        let size = (try FileManager.default.attributesOfItem(atPath: folder + "/received.ts")[.size] as? Int) ?? -1
        #expect(live["bytes"] as? Int == size, "sent \(live["bytes"] ?? "?"), received \(size)")
        let movieNumbers = try TestInputs.frameNumbers(folder + "/movie.mov")
        #expect(movieNumbers.count == 300)
        #expect(try TestInputs.frameNumbers(folder + "/received.ts") == movieNumbers, "the stream holds the movie's pictures, each once")
        let received = try MediaInspection(path: folder + "/received.ts")
        #expect(received.videoFrames == 300, "\(received)")
        // The sound: the tone, whole and without a join (MPEG-TS has no edit list: AAC's priming frame plays
        // first and the last frame's padding last, so those are left out of the check).
        let samples = try TestInputs.monoSamples(folder + "/received.ts", sampleRate: 48000)
        #expect(abs(samples.count - 480_000) <= 2048, "\(samples.count) samples")
        #expect(SegmentInspection.worstToneError(Array(samples.dropFirst(2048).dropLast(1024)), frequency: 440, sampleRate: 48000, skip: 0) < 0.1)
    }

    /// HEVC travels over SRT (MPEG-TS carries it; FLV in FFmpeg 5.1 does not): the listener's file decodes from
    /// its first picture without an error, every picture there.
    @Test func srtCarriesHEVC() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listener = try SRTListener(output: folder + "/received.ts")
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "2", "--live", listener.url, "--preset", "1080p-hevc",
                                         "--size", "320x240", "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(listener.finish()?.status == 0)
        // Without --json, a line under the movie's says what the push carried.
        let summary = result.standardError.split(separator: "\n").first { $0.hasPrefix(listener.url + ": ") }
        #expect(summary?.hasPrefix(listener.url + ": 2.00 s, ") == true && summary?.contains(", connected ") == true, "\(result.standardError)")
        let received = try MediaInspection(path: folder + "/received.ts")
        #expect(received.videoFrames == 60, "\(received)")
        let decode = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", folder + "/received.ts", "-f", "null", "-"])
        #expect(decode.status == 0 && decode.standardError.isEmpty, "\(decode.standardError)")
        let codec = try FFprobe.stream(folder + "/received.ts", type: "video")?["codec_name"] as? String
        #expect(codec == "hevc")
    }

    /// nginx dies three seconds in and comes back two seconds later: the movie records every frame, Reel says
    /// what happened and reconnects after its backoff, and the server's second recording is the movie's
    /// pictures from a keyframe on.
    @Test func rtmpServerThatDiesIsReconnectedAndTheMovieIsWhole() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try RTMPServer(folder: folder + "/nginx")
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--max-duration", "12",
                                                                     "--live", server.url + "/cam1"] + LiveServerTests.pacedNumbered,
                                          currentDirectory: folder)
        // Once nginx records the stream, it dies (connections dropped), then comes back.
        let recording = LiveServers.waitUntil(seconds: 20) { server.recordedFiles().count == 1 }
        #expect(recording, "nginx never recorded the stream")
        usleep(3_000_000)
        server.stop()
        usleep(2_000_000)
        try server.start()
        let result = Processes.finish(running, timeout: 60)
        server.stop()
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        if RealTimeChecks.make("a paced recording drops no frame") {
            #expect(json["droppedFrames"] as? Int == 0 && json["videoFrames"] as? Int == 360, "\(json)")
        }
        let live = try LiveServerTests.live(json)
        #expect(live["kind"] as? String == "rtmp" && live["url"] as? String == server.url + "/***" && live["error"] == nil)
        #expect(live["reconnects"] as? Int == 1 && (live["gaps"] as? Int ?? 0) >= 1 && (live["droppedGOPs"] as? Int ?? 0) >= 1, "\(live)")
        let connected = live["connectedSeconds"] as? Double ?? 0
        #expect(connected > 2 && connected < 11, "connected \(connected) s of 12")
        // What a person saw: the loss, the wait, the attempts, the return; never the stream key.
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "reel: live stream \(server.url)/*** connected" }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("reel: live stream \(server.url)/*** disconnected: ") }, "\(lines)")
        #expect(lines.contains("reel: live stream \(server.url)/***: attempt 1 in 1 s"), "\(lines)")
        #expect(!result.standardError.contains("cam1"))
        // nginx kept a file per publish: the first from the movie's first picture, the second a run of the
        // movie's pictures again, from a keyframe.
        let movieNumbers = try TestInputs.frameNumbers(folder + "/movie.mov")
        let files = server.recordedFiles()
        try #require(files.count == 2, "\(files)")
        let first = try TestInputs.frameNumbers(files[0]), second = try TestInputs.frameNumbers(files[1])
        // The server's file ends where it died: the last B-frames whose packets came after the cut are missing.
        let cut = 3
        #expect(first.count >= 60 && Array(movieNumbers.prefix(first.count - cut)) == Array(first.dropLast(cut))
                && LiveServerTests.isSubsequence(Array(first.suffix(cut)), of: Array(movieNumbers.dropFirst(first.count - cut).prefix(2 * cut))),
                "\(first.count) pictures before the loss: \(first.suffix(12)) against \(movieNumbers.prefix(first.count).suffix(12))")
        #expect(second.count >= 60 && LiveServerTests.isContiguousRun(second, of: movieNumbers), "\(second.count) pictures after it")
        #expect(try SegmentInspection.startsWithKeyframe(files[1]))
        #expect(first.count + second.count < 360, "pictures of the outage are not in the stream")
    }

    /// A proxy passes the stream, then stops reading (Reel's writes block), then resets the connection: Reel
    /// gives up on the stalled connection after its stall limit, reconnects, and the movie loses nothing
    /// while Reel's memory stays bounded. All of it in a network namespace whose TCP buffers are small, so
    /// the stall reaches Reel's writes within a second (Linux's default buffers would hold a minute of it).
    @Test func stalledThenResetNetworkLeavesTheMovieWhole() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let namespace = try NetworkNamespace()
        let server = try RTMPServer(folder: folder + "/nginx", namespace: namespace)
        let proxy = try FaultProxy(target: server.port, passSeconds: 3, stallSeconds: 9, namespace: namespace)
        let (executable, arguments) = namespace.command(Processes.reelExecutable, [
            "record", "movie.mov", "--max-duration", "16", "--live", "rtmp://127.0.0.1:\(proxy.port)/live/cam",
            "--video", "lavfi:testsrc2=size=352x288:rate=30", "--audio", "lavfi:sine=frequency=440", "--preset", "352x288", "--json",
        ])
        let running = try Processes.start(executable, arguments, currentDirectory: folder)
        var peak = 0
        while running.process.isRunning {
            peak = max(peak, LiveServerTests.residentKilobytes(running.process.processIdentifier))
            usleep(100_000)
        }
        let result = Processes.finish(running, timeout: 30)
        let proxyLog = proxy.stop()
        server.stop()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(proxyLog.contains("connection 1: stalled") && proxyLog.contains("connection 1: reset"), "\(proxyLog)")
        let json = try TestInputs.json(result.standardOutput)
        let live = try LiveServerTests.live(json)
        #expect((live["reconnects"] as? Int ?? 0) >= 1 && live["error"] == nil, "\(live)")
        // A sanitizer's slowdown shrinks what is sent: the buffers may not fill before the proxy resets.
        if RealTimeChecks.make("a paced recording drops no frame; the stall reaches Reel's writes before the reset") {
            #expect(json["droppedFrames"] as? Int == 0 && json["videoFrames"] as? Int == 480, "\(json)")
            #expect(result.standardError.contains("disconnected: the server did not answer or take data for 5 s"), "\(result.standardError)")
        }
        // The stream came back through the proxy: nginx holds a second recording with pictures in it.
        let files = server.recordedFiles()
        #expect(files.count >= 2, "\(files)")
        if let last = files.last { #expect(try MediaInspection(path: last).videoFrames >= 60) }
        // A stall holds at most the stream's queue (24 MiB) and one connection's buffers.
        if RealTimeChecks.make("resident memory (a sanitizer's shadow memory grows with every allocation)") {
            #expect(peak > 0 && peak < 400_000, "peak resident \(peak) kB")
        }
    }

    /// A server that is not up yet when the recording starts: Reel tries it after 1, 2, 4 s, and the control
    /// socket's subscribers see each attempt and the connection (`reel ctl SOCK watch`, as a person reads them).
    @Test func connectionEventsReachTheControlSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try LiveServers.freePort()
        let url = "rtmp://127.0.0.1:\(port)/live"
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--max-duration", "12", "--live", url + "/cam",
                                                                     "--control", "live.sock"] + LiveServerTests.pacedNumbered,
                                          currentDirectory: folder)
        #expect(Processes.waitForFile(folder + "/live.sock", seconds: 20), "the control socket did not appear")
        let watch = try Processes.start(Processes.reelExecutable, ["ctl", "live.sock", "watch"], currentDirectory: folder)
        usleep(1_500_000)
        let server = try RTMPServer(folder: folder + "/nginx", port: port)
        // `status` shows the push's latest state: waiting for its next attempt, then connected.
        var statusText = ""
        let connected = LiveServers.waitUntil(seconds: 15) {
            statusText = (try? Processes.reel(["ctl", "live.sock", "status"], currentDirectory: folder).standardOutput) ?? ""
            return statusText.contains("live: \(url)/*** connected")
        }
        #expect(connected, "\(statusText)")
        let statusJSON = try TestInputs.json(try Processes.reel(["ctl", "live.sock", "status", "--json"], currentDirectory: folder).standardOutput)
        let pushes = statusJSON["livePushes"] as? [[String: Any]]
        #expect(pushes?.count == 1 && pushes?.first?["state"] as? String == "connected" && pushes?.first?["url"] as? String == url + "/***",
                "\(statusJSON)")
        let result = Processes.finish(running, timeout: 60)
        let watched = Processes.finish(watch, timeout: 20)
        server.stop()
        #expect(result.status == 0, "\(result.standardError)")
        let lines = watched.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("live stream \(url)/***: attempt ") && $0.hasSuffix(" (connection refused)") }, "\(lines)")
        #expect(lines.contains("live stream \(url)/*** connected"), "\(lines)")
        #expect(lines.last?.hasPrefix("finished") == true, "\(lines)")
        let live = try LiveServerTests.live(try TestInputs.json(result.standardOutput))
        #expect(live["reconnects"] as? Int == 0 && live["error"] == nil && (live["droppedPackets"] as? Int ?? 0) > 0, "\(live)")
        #expect(server.recordedFiles().count == 1)
    }

    /// `reel ctl SOCK live-push URL` starts a push while the movie records: the listener gets the movie's
    /// pictures from the next one on, to the end; the reply names the server without its secrets.
    @Test func aPushStartedOverTheControlSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listener = try SRTListener(output: folder + "/received.ts", passphrase: "0123456789abc")
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--max-duration", "4", "--control", "live.sock"]
                                          + LiveServerTests.pacedNumbered, currentDirectory: folder)
        #expect(Processes.waitForFile(folder + "/live.sock", seconds: 20), "the control socket did not appear")
        usleep(1_000_000)
        let reply = try Processes.reel(["ctl", "live.sock", "live-push", listener.url + "?passphrase=0123456789abc"], currentDirectory: folder)
        #expect(reply.status == 0 && reply.standardOutput == "pushing to \(listener.url)?passphrase=*** from the next picture\n",
                "\(reply.standardOutput) \(reply.standardError)")
        let again = try Processes.reel(["ctl", "live.sock", "live-push", listener.url + "?passphrase=0123456789abc"], currentDirectory: folder)
        #expect(again.status == 1 && again.standardError.contains("already pushes there") && !again.standardError.contains("0123456789abc"),
                "\(again.standardError)")
        let result = Processes.finish(running, timeout: 60)
        listener.finish()
        #expect(result.status == 0, "\(result.standardError)")
        let movie = try TestInputs.frameNumbers(folder + "/movie.mov")
        let received = try TestInputs.frameNumbers(folder + "/received.ts")
        #expect(received.count >= 30 && Array(movie.suffix(received.count)) == received, "\(received.count) of \(movie.count)")
        let live = try LiveServerTests.live(try TestInputs.json(result.standardOutput))
        #expect(live["kind"] as? String == "srt" && live["error"] == nil && live["url"] as? String == listener.url + "?passphrase=***")
    }

    /// `reel ctl SOCK live DIR` starts an HLS stream while the movie records (relative: beside the recording):
    /// its playlist holds the movie's pictures from the next one on, to the end.
    @Test func anHLSStreamStartedOverTheControlSocket() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--max-duration", "8", "--control", "live.sock",
                                                                    ] + LiveServerTests.pacedNumbered, currentDirectory: folder)
        #expect(Processes.waitForFile(folder + "/live.sock", seconds: 20), "the control socket did not appear")
        usleep(1_000_000)
        let reply = try Processes.reel(["ctl", "live.sock", "live", "hls"], currentDirectory: folder)
        #expect(reply.status == 0 && reply.standardOutput.hasPrefix("streaming HLS to ") && reply.standardOutput.contains("/hls/index.m3u8"),
                "\(reply.standardOutput) \(reply.standardError)")
        let again = try Processes.reel(["ctl", "live.sock", "live", "hls"], currentDirectory: folder)
        #expect(again.status == 1 && again.standardError.contains("already"), "\(again.standardError)")
        let result = Processes.finish(running, timeout: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let check = HLSPlaylistCheck(try String(contentsOfFile: folder + "/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && check.isEnded, "\(check.problems)")
        let movie = try TestInputs.frameNumbers(folder + "/movie.mov")
        let streamed = try TestInputs.frameNumbers(folder + "/hls/index.m3u8")
        #expect(streamed.count >= 60 && Array(movie.suffix(streamed.count)) == streamed, "\(streamed.count) of \(movie.count)")
        let live = try LiveServerTests.live(try TestInputs.json(result.standardOutput))
        #expect(live["kind"] as? String == "hls" && live["error"] == nil, "\(live)")
    }

    /// A push whose network stalls from the start while the movie runs far ahead of real time (an unpaced
    /// noisy source at a near-lossless rate: ~100 MB in under two seconds): the stream's queue fills and drops
    /// whole groups of pictures instead of growing; the movie loses nothing, and Reel's memory grows by no
    /// more than the queue's bound (24 MiB, and one batch being written) over the same movie recorded alone.
    @Test func aStalledPushDropsGroupsInsteadOfGrowing() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"name": "near-lossless", "video": {"size": "320x240", "fps": 30, "x264Preset": "ultrafast", "crf": 1, "profile": "high", "keyframeInterval": 30}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}"#
            .write(toFile: folder + "/heavy.json", atomically: true, encoding: .utf8)
        let namespace = try NetworkNamespace()
        let server = try RTMPServer(folder: folder + "/nginx", namespace: namespace)
        let proxy = try FaultProxy(target: server.port, passSeconds: 0, stallSeconds: 30, namespace: namespace)
        let common = ["--max-duration", "30", "--preset", "heavy.json", "--video", "lavfi:testsrc2,noise=alls=100:allf=t?realtime=0",
                      "--audio", "lavfi:sine?realtime=0", "--json", "--overwrite"]
        func peakOf(_ arguments: [String]) throws -> (ProcessResult, Int) {
            let (executable, all) = namespace.command(Processes.reelExecutable, arguments)
            let running = try Processes.start(executable, all, currentDirectory: folder)
            var peak = 0
            while running.process.isRunning {
                peak = max(peak, LiveServerTests.residentKilobytes(running.process.processIdentifier))
                usleep(50_000)
            }
            return (Processes.finish(running, timeout: 60), peak)
        }
        let (alone, alonePeak) = try peakOf(["record", "alone.mov"] + common)
        let (pushed, pushedPeak) = try peakOf(["record", "pushed.mov", "--live", "rtmp://127.0.0.1:\(proxy.port)/live/cam"] + common)
        _ = proxy.stop()
        server.stop()
        #expect(alone.status == 0 && pushed.status == 0, "\(pushed.standardError)")
        let json = try TestInputs.json(pushed.standardOutput)
        #expect(json["videoFrames"] as? Int == 900 && json["droppedFrames"] as? Int == 0, "\(json)")
        let live = try LiveServerTests.live(json)
        #expect((live["droppedGOPs"] as? Int ?? 0) >= 5 && (live["droppedPackets"] as? Int ?? 0) > 0, "\(live)")
        if RealTimeChecks.make("resident memory (a sanitizer's shadow memory grows with every allocation)") {
            // Unbounded, the queue would hold the whole stream (~100 MB) while the write is blocked.
            #expect(pushedPeak - alonePeak < 2 * 24 * 1024 + 16 * 1024, "peak \(pushedPeak) kB with the push, \(alonePeak) kB alone")
        }
    }

    /// An application nginx does not have: the server hangs up on the publish. Only the stream stops, with one
    /// line that names the server (not the key) and what to check; the movie is whole and Reel exits 0.
    @Test func refusedStreamKeyStopsOnlyTheStream() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try RTMPServer(folder: folder + "/nginx")
        let url = "rtmp://127.0.0.1:\(server.port)/nosuchapp/secretkey"
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "3", "--live", url] + LiveServerTests.numbered,
                                        currentDirectory: folder)
        server.stop()
        #expect(result.status == 0, "\(result.standardError)")
        let json = try TestInputs.json(result.standardOutput)
        #expect(json["videoFrames"] as? Int == 90)
        let live = try LiveServerTests.live(json)
        let error = live["error"] as? String ?? ""
        #expect(error.contains("refused the stream") && error.contains("stream key"), "\(error)")
        let warnings = result.standardError.split(separator: "\n").filter { $0.hasPrefix("reel: warning: live stream") }
        #expect(warnings.count == 1 && warnings[0].contains("rtmp://127.0.0.1:\(server.port)/nosuchapp/*** stopped"), "\(result.standardError)")
        #expect(!result.standardError.contains("secretkey") && !result.standardOutput.contains("secretkey"))
        #expect(server.recordedFiles().isEmpty)
    }

    /// Addresses that cannot work are refused before anything is written: exit 2, one line, no movie.
    @Test func badServersAreRefusedBeforeAnythingIsWritten() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [([String], String)] = [
            (["--live", "srt://127.0.0.1"], "an SRT address needs a port"),
            (["--live", "rtmp://127.0.0.1/live"], "names an application and a stream key"),
            (["--live", "http://127.0.0.1/live/x"], "Reel pushes to srt:// and rtmp:// servers"),
            (["--live", "srt://127.0.0.1:9?mode=listener"], "mode=caller"),
            (["--live", "rtmp://127.0.0.1/live/k", "--preset", "1080p-hevc"], "RTMP (FLV) carries H.264 only"),
            (["--live", "srt://127.0.0.1:9", "--live", "srt://127.0.0.1:9"], "is given twice"),
            (["--live", "srt://127.0.0.1:9", "--live-segment", "2"], "--live-segment sets up an HLS stream: add --live DIR"),
        ]
        for (options, message) in cases {
            let result = try Processes.reel(["record", "movie.mov", "--max-duration", "1", "--video", "lavfi:testsrc2?realtime=0"] + options,
                                            currentDirectory: folder)
            #expect(result.status == 2, "\(options): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(message), "\(options): \(result.standardError)")
            #expect(Scratch.files(in: folder).isEmpty, "\(options) wrote \(Scratch.files(in: folder))")
        }
    }

    static func isSubsequence(_ part: [Int], of whole: [Int]) -> Bool {
        var rest = whole[...]
        for value in part {
            guard let index = rest.firstIndex(of: value) else { return false }
            rest = rest[(index + 1)...]
        }
        return true
    }

    static func residentKilobytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
