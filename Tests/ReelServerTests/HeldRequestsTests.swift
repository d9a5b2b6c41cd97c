import Foundation
import Glibc
@testable import ReelServer
import ReelTestSupport
import Testing

/// Issue 26 (and 25's concurrency): what waits in `reel serve` — held blocking playlist reloads, event streams
/// and preview streams between two messages — waits with its connection parked in libmicrohttpd's one epoll
/// thread, not on a thread of its own. Many held at once leave the server's thread count as it was; one change
/// of the playlist answers them all; clients that hang up free their slots without anything being sent; a stop
/// answers what is held. The origin reads a playlist file the way it reads a writer's (renamed into place).
@Suite(.serialized) struct HeldRequestsTests {
    /// The names of the server's threads, sorted (a failure's message lists them): libmicrohttpd's (MHD-…) and
    /// the server's own (reel.serve…, reel.http…); the test runner's and any capture session's are not counted.
    /// (The suite runs alone: `make test` runs it with --no-parallel, so no other server's threads come and go.)
    static func serverThreadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            let name = ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return name.hasPrefix("MHD") || name.hasPrefix("reel.serve") || name.hasPrefix("reel.http") ? name : nil
        }.sorted()
    }

    static func writePlaylist(_ text: String, in folder: String) throws {
        try text.write(toFile: "\(folder)/.index.m3u8.partial", atomically: false, encoding: .utf8)
        #expect(rename("\(folder)/.index.m3u8.partial", "\(folder)/index.m3u8") == 0)
    }

    @Test func heldRequestsAndStreamsCostNoThreads() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hls = "\(folder)/hls"
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        try HeldRequestsTests.writePlaylist(BlockingReloadTests.playlist, in: hls)  // segments to 4, part 5.0, hint 5.1
        let server = try CameraServer(.init(listen: "127.0.0.1:0", recordings: "\(folder)/recordings", video: nil, audio: nil,
                                            preset: "352x288", startsCamera: false, liveFolder: hls))
        let started = try server.start()
        var stopped = false
        defer { if !stopped { server.stop() } }
        let port = started.port
        let client = HTTPTestClient(port: port)
        #expect(try client.request("GET", "/api/status").status == 200)  // the work pool has served once
        // Idle: libmicrohttpd's thread, the deadline watcher, the live origin's and the API worker that answered.
        // Each names itself once it runs (on a busy machine, a moment after it was started): wait for the names.
        let idle = ["MHD-single", "reel.http.deadl", "reel.serve.api", "reel.serve.live"]
        #expect(LiveServers.waitUntil(seconds: 5) { Set(HeldRequestsTests.serverThreadNames()).isSuperset(of: idle) },
                "the idle server's threads: \(HeldRequestsTests.serverThreadNames())")
        let beforeNames = HeldRequestsTests.serverThreadNames(), before = beforeNames.count

        func open(_ path: String) throws -> HTTPTestClient.Connection {
            let connection = try HTTPTestClient.Connection(port: port)
            try connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
            return connection
        }
        // 40 reloads held for part 5.1, 6 for the hinted part's file, 8 event streams, 8 preview streams: 62 waiting.
        let reloads = try (0..<40).map { _ in try open("/live/index.m3u8?_HLS_msn=5&_HLS_part=1") }
        let hinted = try (0..<6).map { _ in try open("/live/part5.1.m4s") }
        var events = try (0..<8).map { _ in try open("/api/events") }
        for stream in events { #expect(String(decoding: stream.read(until: "event: state", timeout: 5), as: UTF8.self).contains("event: state")) }
        var previews = try (0..<8).map { _ in try open("/preview.mjpg") }
        #expect(LiveServers.waitUntil(seconds: 5) { (try? client.request("GET", "/api/status"))?.object["previewViewers"] as? Int == 8 })
        for connection in reloads + hinted { #expect(connection.read(timeout: 0.05) == nil, "held, not answered") }
        let duringNames = HeldRequestsTests.serverThreadNames(), during = duringNames.count
        // The work pool may have grown to its bound answering the event streams' first state, and the event
        // streams share one keep-alive thread, started with the first; nothing else (none per request).
        #expect(during <= before + APIRoutes.workThreads + 1, "threads: \(beforeNames) idle, \(duringNames) with 62 requests waiting")
        print("server threads: \(beforeNames) idle, \(duringNames) with 62 requests waiting")

        // One change of the playlist answers every held reload at once; the hinted part, once written, is sent.
        let grown = BlockingReloadTests.playlist.replacingOccurrences(of: "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part5.1.m4s\"",
                                                                      with: "#EXT-X-PART:DURATION=0.250000,URI=\"part5.1.m4s\"\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part5.2.m4s\"")
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: "\(hls)/part5.1.m4s"))
        try HeldRequestsTests.writePlaylist(grown, in: hls)
        let changed = Date()
        for connection in reloads {
            let answer = try HTTPTestClient.parse(connection.readAll(timeout: 5))
            #expect(answer.status == 200 && answer.text.contains("URI=\"part5.1.m4s\"\n#EXT-X-PRELOAD-HINT"), "\(answer.status) \(answer.text)")
        }
        for connection in hinted {
            let answer = try HTTPTestClient.parse(connection.readAll(timeout: 5))
            #expect(answer.status == 200 && answer.body == [UInt8](repeating: 7, count: 1000), "\(answer.status)")
        }
        // Each 200 above came before the server's own bound (three target durations, 3 s, then a 503).
        print("all 46 answered \(Date().timeIntervalSince(changed)) s after the change")

        // Clients that hang up while parked free their slots (nothing was sent to them to find out).
        previews.removeAll()
        events.removeAll()
        #expect(LiveServers.waitUntil(seconds: 5) { (try? client.request("GET", "/api/status"))?.object["previewViewers"] as? Int == 0 },
                "the preview viewers that left are gone")

        // A stop answers what is held: a reload gets the playlist as it is.
        let last = try open("/live/index.m3u8?_HLS_msn=5&_HLS_part=3")
        #expect(last.read(timeout: 0.3) == nil)
        let stopping = Date()
        server.stop()
        stopped = true
        let answer = try HTTPTestClient.parse(last.readAll(timeout: 5))
        #expect(answer.status == 200 && answer.text.contains("part5.1.m4s"), "\(answer.status)")
        #expect(Date().timeIntervalSince(stopping) < 5)
    }
}
