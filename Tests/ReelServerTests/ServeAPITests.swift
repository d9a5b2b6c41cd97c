import Foundation
import Glibc
import Reel
@testable import ReelServer
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 17: `reel serve`'s API over loopback with a real HTTP client, on a live (paced) test source: photos,
/// movies with limits, the tap/hold shutter, events, Range downloads, deletion, switching, and every error
/// path a client can reach (auth, Host, Origin, traversal, bodies and headers too large, bad JSON).
@Suite(.serialized) struct ServeAPITests {
    final class Served {
        let server: CameraServer
        let started: CameraServer.Started
        let folder: String
        var client: HTTPTestClient { HTTPTestClient(port: started.port) }

        init(listen: String = "127.0.0.1:0", token: String? = nil, limits: HTTPServer.Limits = .init()) throws {
            folder = try Scratch.folder()
            server = try CameraServer(.init(listen: listen, recordings: "\(folder)/recordings", token: token,
                                             video: "lavfi:testsrc2=size=352x288", audio: "lavfi:sine", preset: "352x288"),
                                      limits: limits)
            started = try server.start()
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }

        func file(_ name: String) -> String { "\(folder)/recordings/\(name)" }
    }

    @Test func photosMoviesAndTheShutter() throws {
        let served = try Served()
        let client = served.client
        let status = try client.request("GET", "/api/status")
        #expect(status.status == 200 && status.object["running"] as? Bool == true, "\(status.text)")
        #expect(try client.request("GET", "/api/presets").json is [Any])
        #expect(try client.request("GET", "/api/devices").object["builtIn"] != nil)

        // Events: the stream opens with the state.
        let events = try HTTPTestClient.Connection(port: served.started.port)
        try events.send(Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(served.started.port)\r\n\r\n".utf8))
        let opening = String(decoding: events.read(until: "event: state", timeout: 5), as: UTF8.self)
        #expect(opening.contains("text/event-stream") && opening.contains("event: state"), "\(opening)")

        // A photo: a JPEG at the preset's size in the folder.
        let photo = try client.request("POST", "/api/photo")
        let photoName = try #require(photo.object["name"] as? String, "\(photo.text)")
        let photoStream = try FFprobe.streams(served.file(photoName))
        #expect(photoStream.first?["width"] as? Int == 352 && photoStream.first?["height"] as? Int == 288)

        // A movie with a limit: it stops by itself, announced as an event.
        let movie = try client.request("POST", "/api/movie/start", body: #"{"maxDuration": 1.5}"#)
        let movieName = try #require(movie.object["name"] as? String, "\(movie.text)")
        let finished = String(decoding: events.read(until: "event: movieFinished", timeout: 10), as: UTF8.self)
        #expect(finished.contains("maxDurationReached"), "\(finished)")
        let recorded = try MediaInspection(path: served.file(movieName))
        #expect(recorded.videoFrames == 45 && abs(recorded.audioDuration - 1.5) < 0.05, "\(recorded.videoFrames) frames")
        #expect(try CleanDecode.problems(in: served.file(movieName)).isEmpty)

        // The shutter: a tap keeps a photo and no movie; a hold keeps the movie and no photo.
        let tapName = try #require(try client.request("POST", "/api/shutter/press").object["name"] as? String)
        usleep(300_000)
        let tap = try client.request("POST", "/api/shutter/release").object
        #expect(tap["kind"] as? String == "photo", "\(tap)")
        #expect(!FileManager.default.fileExists(atPath: served.file(tapName)), "the tap's movie is deleted")
        #expect(FileManager.default.fileExists(atPath: served.file(tap["name"] as? String ?? "-")))
        _ = try client.request("POST", "/api/shutter/press")
        usleep(1_600_000)
        let hold = try client.request("POST", "/api/shutter/release").object
        #expect(hold["kind"] as? String == "movie", "\(hold)")
        let held = try MediaInspection(path: served.file(hold["name"] as? String ?? "-"))
        #expect(held.videoDuration > 1.4 && held.videoDuration < 2.2, "a 1.6 s hold: \(held.videoDuration) s")
        // (the thumbnails' folder is the one hidden name the server keeps there)
        let hidden = Scratch.files(in: "\(served.folder)/recordings").filter { $0.hasPrefix(".") && $0 != RecordingsFolder.thumbnailFolder }
        #expect(hidden.isEmpty, "no hidden photo of the hold is left: \(hidden)")

        // The list, newest first, and downloads with Range (what a <video> element asks for).
        let list = try #require(try client.request("GET", "/api/recordings").json as? [[String: Any]])
        #expect(Set(list.compactMap { $0["name"] as? String }) == Set(Scratch.files(in: "\(served.folder)/recordings")).subtracting([RecordingsFolder.thumbnailFolder]))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: served.file(movieName))))
        let whole = try client.request("GET", "/recordings/\(movieName)")
        #expect(whole.status == 200 && whole.body == bytes && whole.headers["content-type"] == "video/quicktime")
        let part = try client.request("GET", "/recordings/\(movieName)", headers: ["Range": "bytes=100-199"])
        #expect(part.status == 206 && part.body == Array(bytes[100..<200]) && part.headers["content-range"] == "bytes 100-199/\(bytes.count)")
        let tail = try client.request("GET", "/recordings/\(movieName)", headers: ["Range": "bytes=-10"])
        #expect(tail.status == 206 && tail.body == Array(bytes.suffix(10)))
        #expect(try client.request("GET", "/recordings/\(movieName)", headers: ["Range": "bytes=\(bytes.count)-"]).status == 416)

        // Deleting: once, then it is gone.
        #expect(try client.request("DELETE", "/api/recordings/\(movieName)").status == 200)
        #expect(!FileManager.default.fileExists(atPath: served.file(movieName)))
        #expect(try client.request("DELETE", "/api/recordings/\(movieName)").status == 404)
        #expect(try client.request("GET", "/recordings/\(movieName)").status == 404)
    }

    /// Issue 24, item 6: photos asked for at once each get a file of their own, and a name is never given to
    /// two clients.
    @Test func concurrentPhotosGetNamesOfTheirOwn() throws {
        let served = try Served()
        let names = Locked<[String]>([])
        let port = served.started.port
        let threads = (0..<8).map { _ in
            Thread {
                if let name = (try? HTTPTestClient(port: port).request("POST", "/api/photo"))?.object["name"] as? String {
                    names.withLock { $0.append(name) }
                }
            }
        }
        for thread in threads { thread.start() }
        for _ in 0..<600 where names.withLock({ $0.count }) < 8 { usleep(50_000) }
        let given = names.withLock { $0 }
        #expect(given.count == 8 && Set(given).count == 8, "\(given)")
        #expect(Scratch.files(in: "\(served.folder)/recordings").filter { $0.hasSuffix(".jpg") }.count == 8)
    }

    /// Issue 24, item 12: a segmented take names its first file, which exists; and a take whose folder is
    /// renamed while it records reports the complete movie it made, saying where it is no longer.
    @Test func segmentedTakesAndAMovedFolderAreReportedAsTheyAre() throws {
        let served = try Served()
        let client = served.client
        let segmented = try client.request("POST", "/api/movie/start", body: #"{"segmentDuration": 1}"#)
        let first = try #require(segmented.object["name"] as? String, "\(segmented.text)")
        usleep(2_500_000)
        let stop = try client.request("POST", "/api/movie/stop")
        #expect(stop.status == 200, "\(stop.text)")
        #expect((stop.object["name"] as? String) == first && first.hasSuffix("-001.mov"), "\(first) \(stop.text)")
        #expect(FileManager.default.fileExists(atPath: served.file(first)))

        let take = try client.request("POST", "/api/movie/start")
        #expect(take.status == 200, "\(take.text)")
        usleep(1_500_000)
        try FileManager.default.moveItem(atPath: "\(served.folder)/recordings", toPath: "\(served.folder)/moved")
        usleep(1_000_000)
        let moved = try client.request("POST", "/api/movie/stop")
        let result = try #require(moved.object["result"] as? [String: Any], "\(moved.text)")
        #expect(result["recordedSuccessfully"] as? Bool == true && (result["bytes"] as? Int ?? 0) > 0, "\(result)")
        #expect((result["duration"] as? Double ?? 0) > 2 && (result["error"] as? String)?.contains("no longer there") == true, "\(result)")
        let name = try #require(take.object["name"] as? String)
        #expect(try MediaInspection(path: "\(served.folder)/moved/\(name)").videoFrames == result["videoFrames"] as? Int)
        try FileManager.default.moveItem(atPath: "\(served.folder)/moved", toPath: "\(served.folder)/recordings")
    }

    /// Issue 24, item 15: a slowloris (a header line every half second, never ending its head) is cut at the
    /// head deadline, so it cannot hold the server; one remote address gets a bounded share of the
    /// connections, leaving room for others.
    @Test func slowClientsCannotHoldTheServer() throws {
        let served = try Served(limits: HTTPServer.Limits(connections: 8, connectionsPerAddress: 3, headSeconds: 1.5))
        let port = served.started.port
        let slow = try (0..<8).map { _ in try HTTPTestClient.Connection(port: port) }
        for connection in slow { try connection.send(Array("GET /api/status HTTP/1.1\r\n".utf8)) }
        var closed = Set<Int>()
        let started = Date()
        while closed.count < slow.count && Date().timeIntervalSince(started) < 10 {
            for (index, connection) in slow.enumerated() where !closed.contains(index) {
                if (try? connection.send(Array("X-Slow: \(index)\r\n".utf8))) == nil || connection.read(timeout: 0.05) == [] {
                    closed.insert(index)
                }
            }
            usleep(400_000)
        }
        #expect(closed.count == slow.count, "the server cut \(closed.count) of \(slow.count) slow heads")
        #expect(try served.client.request("GET", "/api/status").status == 200)

        // From 127.0.0.2: three connections at most; 127.0.0.3 is still served.
        let remote = try (0..<5).map { _ in try HTTPTestClient.Connection(port: port, from: "127.0.0.2") }
        usleep(300_000)
        let refused = remote.filter { $0.read(timeout: 0.2) == [] }.count
        #expect(refused == 2, "\(refused) of 5 connections from one address refused")
        let other = try HTTPTestClient.Connection(port: port, from: "127.0.0.3")
        try other.send(Array("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        let answer = String(decoding: other.read(until: "\r\n\r\n", timeout: 5), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
    }

    @Test func previewSwitchingAndStopping() throws {
        let served = try Served()
        let client = served.client
        // MJPEG: consecutive JPEG parts, each with its capture time.
        let viewer = try HTTPTestClient.Connection(port: served.started.port)
        try viewer.send(Array("GET /preview.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(served.started.port)\r\n\r\n".utf8))
        let stream = viewer.read(until: "--\(PreviewHub.boundary)", count: 4, timeout: 10)
        let text = String(decoding: stream, as: UTF8.self)
        #expect(text.contains("multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)"), "\(text.prefix(300))")
        let jpegStart = stream.firstRange(of: [0xFF, 0xD8, 0xFF])
        #expect(jpegStart != nil, "a JPEG arrives")
        #expect(text.components(separatedBy: "X-Reel-Captured:").count >= 4, "several pictures arrive")

        // Switching the camera while running.
        let switched = try client.request("POST", "/api/session/switch", body: #"{"video": "lavfi:smptebars"}"#)
        #expect(switched.status == 200, "\(switched.text)")
        #expect((try client.request("GET", "/api/status").object["inputs"] as? [String: Any])?["video"] as? String == "lavfi:smptebars")
        let badSwitch = try client.request("POST", "/api/session/switch", body: #"{"video": "v4l2:/dev/video97"}"#)
        #expect(badSwitch.status == 404 || badSwitch.status == 400, "\(badSwitch.status) \(badSwitch.text)")

        // A movie being recorded when the camera stops is finalized.
        let movie = try #require(try client.request("POST", "/api/movie/start").object["name"] as? String)
        usleep(800_000)
        #expect(try client.request("POST", "/api/session/stop").status == 200)
        #expect(try MediaInspection(path: served.file(movie)).videoFrames > 10)
        let stopped = try client.request("POST", "/api/photo")
        #expect(stopped.status == 400 && (stopped.object["error"] as? String)?.contains("not running") == true, "\(stopped.text)")
        #expect(try client.request("POST", "/api/session/start", body: #"{"preset": "low"}"#).status == 200)
        #expect((try client.request("GET", "/api/status").object["inputs"] as? [String: Any])?["preset"] as? String == "low")

        // Stopping the server ends the open streams and returns promptly.
        let began = Date()
        served.server.stop()
        #expect(Date().timeIntervalSince(began) < 10, "stop took \(Date().timeIntervalSince(began)) s")
    }

    /// Every error a client can cause is a 4xx with a JSON error, and the server goes on.
    @Test func badRequestsGetClearErrors() throws {
        let served = try Served()
        let client = served.client
        func expectError(_ response: HTTPTestClient.Response, _ status: Int, _ words: String, _ what: String) {
            #expect(response.status == status, "\(what): \(response.status) \(response.text)")
            #expect((response.object["error"] as? String)?.contains(words) == true, "\(what): \(response.text)")
        }
        expectError(try client.request("POST", "/api/movie/stop"), 400, "no movie", "stop without a movie")
        expectError(try client.request("POST", "/api/shutter/release"), 400, "not pressed", "release without a press")
        expectError(try client.request("POST", "/api/session/start"), 400, "already running", "start twice")
        expectError(try client.request("POST", "/api/movie/start", body: "{not json"), 400, "JSON object", "bad JSON")
        expectError(try client.request("POST", "/api/movie/start", body: #"{"maxDuration": "long"}"#), 400, "must be a number", "a string for a number")
        expectError(try client.request("POST", "/api/movie/start", body: #"{"preset": "8k"}"#), 400, "unknown preset", "unknown preset")
        expectError(try client.request("POST", "/api/movie/start", body: #"{"preset": "/etc/passwd"}"#), 400, "unknown preset", "a preset path")
        expectError(try client.request("POST", "/api/movie/start", body: #"{"maxSize": "lots"}"#), 400, "not a size", "a bad size")
        expectError(try client.request("POST", "/api/camera-control", body: #"{"settings": ["torch=on"]}"#), 400, "V4L2", "controls on a test source")
        expectError(try client.request("GET", "/api/nothing"), 405, "not a route", "an unknown route")
        expectError(try client.request("GET", "/nothing"), 404, "nothing at", "an unknown path")
        // Paths out of the folder.
        for path in ["/recordings/..%2F..%2Fetc%2Fpasswd", "/recordings/%2e%2e", "/recordings/.hidden.mov", "/recordings/a%2Fb.mov"] {
            expectError(try client.request("GET", path), 400, "not a recording", path)
        }
        expectError(try client.request("DELETE", "/api/recordings/..%2Fsecret.mov"), 400, "not a recording", "delete out of the folder")
        // Other pages and other host names.
        expectError(try client.request("POST", "/api/photo", headers: ["Origin": "http://evil.example"]), 403, "other pages", "a foreign Origin")
        expectError(try client.request("POST", "/api/photo", headers: ["Sec-Fetch-Site": "cross-site"]), 403, "cross-site", "a cross-site fetch")
        expectError(try client.request("GET", "/api/status", host: "evil.example"), 403, "Host", "a foreign Host")
        // Bounds: a body over 64 KiB, headers over the connection's memory.
        let big = "{\"x\": \"" + String(repeating: "a", count: 100_000) + "\"}"
        expectError(try client.request("POST", "/api/movie/start", body: big), 413, "larger than", "a huge body")
        let hugeHeader = try client.raw(Array("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(served.started.port)\r\nX-Big: \(String(repeating: "b", count: 100_000))\r\n\r\n".utf8))
        let headStatus = (try? HTTPTestClient.parse(hugeHeader))?.status
        #expect(headStatus == nil || headStatus! >= 400, "huge headers are refused: \(String(describing: headStatus))")
        let garbage = try client.raw(Array("NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect((try? HTTPTestClient.parse(garbage))?.status ?? 400 >= 400)
        // After all that the server still works and nothing was written.
        #expect(try client.request("GET", "/api/status").status == 200)
        #expect(Scratch.files(in: "\(served.folder)/recordings").isEmpty)
    }

    /// Beyond loopback a token is a must: one is generated when none is given; the bearer header or the cookie
    /// that /?token= sets let a client in.
    @Test func aTokenGuardsOtherAddresses() throws {
        let served = try Served(listen: "0.0.0.0:0")
        let token = try #require(served.started.token)
        #expect(token.count >= 32 && served.started.url.contains("?token=\(token)"))
        let client = served.client
        let host = "0.0.0.0:\(served.started.port)"
        #expect(try client.request("GET", "/api/status", host: host).status == 401)
        #expect(try client.request("GET", "/api/status", headers: ["Authorization": "Bearer nope"], host: host).status == 401)
        #expect(try client.request("GET", "/api/status", headers: ["Authorization": "Bearer \(token)"], host: host).status == 200)
        let login = try client.request("GET", "/?token=\(token)", host: host)
        #expect(login.status == 303 && login.headers["set-cookie"]?.contains("HttpOnly; SameSite=Strict") == true, "\(login.headers)")
        #expect(try client.request("GET", "/api/status", headers: ["Cookie": "reel_token=\(token)"], host: host).status == 200)
        #expect(try client.request("GET", "/?token=wrong", host: host).status == 401)
        #expect(throws: ReelError.self) { _ = try CameraServer(.init(token: "short")) }
    }

    /// A movie with tiers and a disk floor: the tiers are stopped with it; a floor above the free space is
    /// refused before anything is written, with the reason.
    @Test func tiersAndTheDiskFloor() throws {
        let served = try Served()
        let client = served.client
        let started = try client.request("POST", "/api/movie/start", body: #"{"tiers": ["low"], "maxDuration": 30}"#)
        let name = try #require(started.object["name"] as? String, "\(started.text)")
        usleep(1_000_000)
        let stopped = try client.request("POST", "/api/movie/stop").object
        let outputs = ((stopped["result"] as? [String: Any])?["outputs"] as? [[String: Any]]) ?? []
        #expect(outputs.count == 2 && outputs.allSatisfy { $0["recordedSuccessfully"] as? Bool == true }, "\(stopped)")
        let tier = served.file(String(name.dropLast(4)) + "-low.mov")
        let main = try MediaInspection(path: served.file(name)), low = try MediaInspection(path: tier)
        #expect(main.width == 352 && low.width == 192, "\(main.width) and \(low.width)")
        #expect(abs(main.videoDuration - low.videoDuration) < 0.1, "the tier lasts as long: \(main.videoDuration) \(low.videoDuration)")
        let refused = try client.request("POST", "/api/movie/start", body: #"{"minFree": "1000T"}"#)
        #expect(refused.status == 400 && (refused.object["error"] as? String)?.contains("free") == true, "\(refused.text)")
        #expect(try client.request("POST", "/api/movie/start", body: #"{"tiers": ["8k"]}"#).status == 400)
        #expect(try client.request("GET", "/api/status").object["recording"] == nil, "nothing was left recording")
    }

    /// Slow or silent clients cannot exhaust the server: an idle connection is closed after the timeout, and
    /// past the connection limit a new one is not served (libmicrohttpd stops accepting; the kernel holds it)
    /// until the idle ones are gone, and then it is.
    @Test func silentClientsAreBounded() throws {
        var limits = HTTPServer.Limits()
        limits.connections = 6
        limits.connectionsPerAddress = 6
        limits.idleTimeoutSeconds = 2
        let served = try Served(limits: limits)
        let port = served.started.port
        let silent = try (0..<6).map { _ in try HTTPTestClient.Connection(port: port) }
        usleep(200_000)
        let seventh = try HTTPTestClient.Connection(port: port)
        try seventh.send(Array("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        let early = seventh.read(timeout: 1)
        #expect(early == nil, "a connection past the limit was served while six were open: \(String(decoding: early ?? [], as: UTF8.self))")
        // The idle ones are closed by the server after its timeout.
        let began = Date()
        for connection in silent { #expect(connection.read(timeout: 6) == [], "an idle connection was closed") }
        #expect(Date().timeIntervalSince(began) < 6)
        // Then the one that waited is served.
        let answer = String(decoding: seventh.read(until: "\r\n\r\n", timeout: 5), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "served once they are gone: \(answer)")
        #expect(try served.client.request("GET", "/api/status", timeout: 5).status == 200)
    }
}
