import Foundation
import Glibc
@testable import Reel
@testable import ReelServer
import ReelTestSupport
import Testing

/// Issue 26: `reel serve --live-folder DIR` serves the Low-Latency HLS a `reel record --live DIR
/// --low-latency` writes, answering blocking playlist reloads as soon as the part exists, holding requests
/// for the hinted part, and answering 503 after three target durations when nothing comes. Both are real:
/// the recorder is the `reel` command on a paced source, the server listens on loopback.
@Suite(.serialized) struct LiveOriginTests {
    @Test func blockingReloadsAnswerAsSoonAsThePartExists() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: "\(folder)/hls", withIntermediateDirectories: true)
        let server = try CameraServer(.init(listen: "127.0.0.1:0", recordings: "\(folder)/recordings", video: nil, audio: nil, preset: "352x288",
                                            startsCamera: false, liveFolder: "\(folder)/hls"))
        let started = try server.start()
        defer { server.stop() }
        let client = HTTPTestClient(port: started.port)
        #expect(try client.request("GET", "/live/index.m3u8").status == 404, "no playlist before the recorder writes one")

        let recorder = try Processes.start(Processes.reelExecutable, [
            "record", "movie.mov", "--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine",
            "--preset", "352x288", "--size", "64x64", "--live", "hls", "--live-segment", "1", "--low-latency", "--live-part", "0.25",
            "--max-duration", "30", "--quiet", "--json"], currentDirectory: folder)
        var stopped = false
        defer { if !stopped { kill(recorder.process.processIdentifier, SIGKILL); _ = Processes.finish(recorder) } }
        #expect(LiveServers.waitUntil(seconds: 20) { (try? client.request("GET", "/live/index.m3u8"))?.status == 200 })
        let first = try client.request("GET", "/live/index.m3u8")
        #expect(first.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(first.text.contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK="), "\(first.text)")
        let file = try String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8)
        #expect(!file.contains("CAN-BLOCK-RELOAD"), "the file does not claim what a plain web server cannot do")

        // Ask for the next parts one after the other: each answer lists the part asked for, and comes about a
        // part's duration after the one before (the request waited for it; it was not answered at once).
        var position = try #require(BlockingReload.Position(playlist: first.text))
        var waits: [Double] = []
        for _ in 0..<8 {
            let (segment, part) = (position.nextSegment, position.openParts)
            let asked = Date()
            let answer = try client.request("GET", "/live/index.m3u8?_HLS_msn=\(segment)&_HLS_part=\(part)", timeout: 10)
            waits.append(Date().timeIntervalSince(asked))
            #expect(answer.status == 200 && answer.text.contains("URI=\"part\(segment).\(part).m4s\""), "\(answer.status) \(answer.text)")
            position = try #require(BlockingReload.Position(playlist: answer.text))
            #expect(HLSPlaylistCheck(answer.text).problems.isEmpty, "\(HLSPlaylistCheck(answer.text).problems)")
        }
        #expect(waits.filter { $0 > 0.1 }.count >= 4, "requests were held until their part came: \(waits)")
        #expect(waits.allSatisfy { $0 < 3 }, "and answered within three target durations: \(waits)")

        // The hinted part: held until it is written, then its bytes.
        let hinted = try #require(HLSPlaylistCheck(try client.request("GET", "/live/index.m3u8").text).preloadHint)
        let part = try client.request("GET", "/live/\(hinted)", timeout: 10)
        #expect(part.status == 200 && part.headers["content-type"] == "video/iso.segment")
        #expect(Data(part.body) == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/hls/\(hinted)"))))

        // Refused: too far ahead, malformed, outside the stream's names, not a GET.
        #expect(try client.request("GET", "/live/index.m3u8?_HLS_msn=\(position.nextSegment + 5)").status == 400)
        #expect(try client.request("GET", "/live/index.m3u8?_HLS_part=1").status == 400)
        #expect(try client.request("GET", "/live/../movie.mov").status == 404)
        #expect(try client.request("GET", "/live/.index.m3u8.partial").status == 404)
        #expect(try client.request("GET", "/live/part999.0.m4s").status == 404)
        #expect(try client.request("POST", "/live/index.m3u8").status != 200)

        // The recorder stops writing (SIGSTOP): a held request gets 503 after three target durations (3 s).
        kill(recorder.process.processIdentifier, SIGSTOP)
        let now = try #require(BlockingReload.Position(playlist: try client.request("GET", "/live/index.m3u8").text))
        let asked = Date()
        let unanswered = try client.request("GET", "/live/index.m3u8?_HLS_msn=\(now.nextSegment + 1)", timeout: 10)
        let waited = Date().timeIntervalSince(asked)
        #expect(unanswered.status == 503 && waited >= 2.9 && waited < 6, "\(unanswered.status) after \(waited) s")
        kill(recorder.process.processIdentifier, SIGCONT)

        // The end: the playlist ends, and a request for what will never come is answered at once.
        kill(recorder.process.processIdentifier, SIGINT)
        let result = Processes.finish(recorder)
        stopped = true
        #expect(result.status == 0, "\(result.standardError)")
        #expect(LiveServers.waitUntil(seconds: 10) { (try? client.request("GET", "/live/index.m3u8"))?.text.contains("#EXT-X-ENDLIST") == true })
        let last = try #require(BlockingReload.Position(playlist: try client.request("GET", "/live/index.m3u8").text))
        let afterEnd = Date()
        #expect(try client.request("GET", "/live/index.m3u8?_HLS_msn=\(last.nextSegment)").status == 200)
        #expect(Date().timeIntervalSince(afterEnd) < 1)
    }

    @Test func aMissingFolderIsOneClearError() throws {
        #expect(throws: ReelError.self) {
            _ = try CameraServer(.init(video: nil, audio: nil, startsCamera: false, liveFolder: "/nonexistent/hls"))
        }
    }
}

/// Issue 26: `reel serve --live` streams the camera itself as LL-HLS at /live/ (a LiveStreamOutput beside the
/// preview), answers blocking reloads on it, and removes its private folder at the end.
@Suite(.serialized) struct CameraLiveStreamTests {
    @Test func theCameraIsServedAsLowLatencyHLS() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try CameraServer(.init(listen: "127.0.0.1:0", recordings: "\(folder)/recordings", video: "lavfi:\(TestInputs.numberedPictures(rate: "30"))",
                                            audio: "lavfi:sine", preset: "352x288", streamsCamera: true))
        let started = try server.start()
        var stopped = false
        defer { if !stopped { server.stop() } }
        let client = HTTPTestClient(port: started.port)
        // Named in the status once a player can start on it (three 2 s segments).
        #expect(LiveServers.waitUntil(seconds: 30) { (try? client.request("GET", "/api/status"))?.object["live"] as? String == "/live/index.m3u8" })
        let playlist = try client.request("GET", "/live/index.m3u8")
        let check = HLSPlaylistCheck(playlist.text)
        #expect(check.problems.isEmpty && check.canBlockReload && check.partTarget == 0.5 && check.targetDuration == 2, "\(check)")
        #expect(check.entries.count >= 3)
        let position = try #require(BlockingReload.Position(playlist: playlist.text))
        let asked = Date()
        let next = try client.request("GET", "/live/index.m3u8?_HLS_msn=\(position.nextSegment)&_HLS_part=\(position.openParts)", timeout: 10)
        #expect(next.status == 200 && next.text.contains("part\(position.nextSegment).\(position.openParts).m4s"))
        // Answered, not timed out: within the server's bound of three target durations (6 s).
        #expect(Date().timeIntervalSince(asked) < 6, "answered as the part came")
        // Its pictures are the camera's, in order: the init segment and the newest segment decode.
        let newest = try #require(HLSPlaylistCheck(next.text).entries.last)
        let bytes = try client.request("GET", "/live/init.mp4").body + client.request("GET", "/live/\(newest.uri)").body
        try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/newest.mp4"))
        let numbers = try TestInputs.frameNumbers("\(folder)/newest.mp4")
        #expect(numbers.count == 60 && numbers == Array(numbers[0]..<(numbers[0] + 60)), "\(numbers)")
        let privateFolder = try #require(server.liveFolderForTests)
        #expect(FileManager.default.fileExists(atPath: privateFolder))
        server.stop()
        stopped = true
        #expect(!FileManager.default.fileExists(atPath: privateFolder), "the stream's folder is removed at the end")
    }

    /// `--live-push`: the camera pushed to an SRT listener; the connection is an event on /api/events.
    @Test func aPushOfTheCameraIsAnEventOnTheEventStream() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listener = try SRTListener(output: "\(folder)/camera.ts")
        var options = CameraServer.Options(listen: "127.0.0.1:0", recordings: "\(folder)/recordings",
                                           video: "lavfi:\(TestInputs.numberedPictures(rate: "30"))", audio: "lavfi:sine", preset: "352x288")
        options.livePushes = [listener.url]
        let server = try CameraServer(options)
        let started = try server.start()
        let events = try HTTPTestClient.Connection(port: started.port)
        try events.send(Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(started.port)\r\n\r\n".utf8))
        let seen = String(decoding: events.read(until: "event: liveConnected", timeout: 20), as: UTF8.self)
        #expect(seen.contains("event: liveConnected") && seen.contains(listener.url), "\(seen.suffix(400))")
        Thread.sleep(forTimeInterval: 2)
        server.stop()
        _ = listener.finish()
        let numbers = try TestInputs.frameNumbers("\(folder)/camera.ts")
        #expect(numbers.count >= 30 && numbers == Array(numbers[0]..<(numbers[0] + numbers.count)), "\(numbers.count) pictures")
        #expect(throws: ReelError.self, "a folder is not a server") {
            var bad = CameraServer.Options(listen: "127.0.0.1:0", video: nil, audio: nil, startsCamera: false)
            bad.livePushes = ["some/folder"]
            _ = try CameraServer(bad)
        }
    }

    @Test func liveAndLiveFolderAreOneOrTheOther() {
        #expect(throws: ReelError.self) {
            _ = try CameraServer(.init(video: nil, audio: nil, startsCamera: false, liveFolder: "/tmp", streamsCamera: true))
        }
    }
}
