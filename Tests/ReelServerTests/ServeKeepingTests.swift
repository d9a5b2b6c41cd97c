import Foundation
@testable import ReelServer
import Reel
import ReelTestSupport
import Testing

/// Issue 28 in `reel serve`: the camera's replay buffer saved over the API (POST /api/replay) into the
/// recordings folder, and triggered movies of the camera with their events on /api/events.
@Suite(.serialized) struct ServeKeepingTests {
    @Test func aReplaySavedOverTheAPIAndAMovieOfAnEvent() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let recordings = "\(folder)/recordings"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        // Pictures that move from 2 to 3.5 s of the camera's session (paced: the camera runs in real time).
        var options = CameraServer.Options(listen: "127.0.0.1:0", recordings: recordings,
                                           video: "lavfi:color=gray:size=160x90:rate=30,geq=lum='if(between(T\\,2\\,3.5)\\,128+60*sin(X/6+T*12)\\,128)':cb=128:cr=128",
                                           audio: "lavfi:sine", startsCamera: true)
        options.preset = "352x288"
        options.replaySeconds = 10
        options.triggers = TriggeredRecording(rules: [TriggerRule(kind: .motion)], preRoll: 0.5, postRoll: 0.5)
        let server = try CameraServer(options)
        let started = try server.start()
        defer { server.stop() }
        let client = HTTPTestClient(port: started.port)
        let events = try HTTPTestClient.Connection(port: started.port)
        try events.send(Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(started.port)\r\n\r\n".utf8))
        let status = try client.request("GET", "/api/status").object
        #expect(status["replaySeconds"] as? Double == 10 && status["triggers"] as? [String] == ["motion"], "\(status)")

        // The event: started, ended, and its movie in the folder.
        let seen = String(decoding: events.read(until: "event: triggeredMovie", timeout: 20), as: UTF8.self)
        #expect(seen.contains("event: triggerStarted") && seen.contains("event: triggerEnded"), "\(seen)")
        let movieLine = try #require(seen.components(separatedBy: "event: triggeredMovie\ndata: ").last?.components(separatedBy: "\n").first)
        let movie = try JSONDecoder().decode(TriggeredMovie.self, from: Data(movieLine.utf8))
        #expect(movie.error == nil && !movie.path.contains("/") && movie.path.hasPrefix("event-"), "\(movie)")
        // From the keyframe (one a second) at or before 0.5 s ahead of the event, to 0.5 s after it.
        let event = try #require(movie.events.first)
        // Paced pictures are timed as they arrive: a busy machine may date them a little late.
        #expect(abs(event.start - 2) < 0.25 && abs((event.end ?? 0) - 3.5) < 0.25, "\(movie)")
        #expect(abs(movie.start - 1) < 1e-6 && abs(movie.end - ((event.end ?? 0) + 0.5)) < 0.1, "\(movie)")
        let frames = try FFprobe.streams("\(recordings)/\(movie.path)").first { $0["codec_type"] as? String == "video" }
        #expect(frames?["nb_frames"] as? String == String(movie.videoFrames), "\(frames ?? [:])")

        // The replay: 2 s asked, named in the folder; bad requests refused with nothing written.
        let reply = try client.request("POST", "/api/replay", body: #"{"seconds": 2}"#)
        #expect(reply.status == 200, "\(reply.text)")
        let name = try #require(reply.object["path"] as? String)
        #expect(name.hasPrefix("replay-") && !name.contains("/"))
        let seconds = try #require(reply.object["seconds"] as? Double)
        #expect(seconds >= 2 && seconds < 4, "\(reply.text)")
        #expect(try FFprobe.streams("\(recordings)/\(name)").count == 2)
        #expect(String(decoding: events.read(until: "event: replaySaved", timeout: 5), as: UTF8.self).contains(name))
        let before = try FileManager.default.contentsOfDirectory(atPath: recordings).filter { !$0.hasPrefix(".") }.count
        #expect(try client.request("POST", "/api/replay", body: #"{"seconds": 0}"#).status == 400)
        #expect(try client.request("POST", "/api/replay", body: #"{"seconds": "ten"}"#).status == 400)
        #expect(try FileManager.default.contentsOfDirectory(atPath: recordings).filter { !$0.hasPrefix(".") }.count == before)
    }

    @Test func aCameraWithoutAReplayBufferSaysSo() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = CameraServer.Options(listen: "127.0.0.1:0", recordings: folder, video: "lavfi:testsrc2=size=160x90:rate=30",
                                           audio: nil, startsCamera: true)
        options.preset = "352x288"
        let server = try CameraServer(options)
        let started = try server.start()
        defer { server.stop() }
        let reply = try HTTPTestClient(port: started.port).request("POST", "/api/replay")
        #expect(reply.status == 400 && reply.text.contains("--replay-buffer"), "\(reply.text)")
    }
}
