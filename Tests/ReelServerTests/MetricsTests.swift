import Foundation
import Glibc
@testable import ReelServer
import ReelTestSupport
import Testing

/// Issue 27: `GET /metrics` read by Prometheus's own text parser (Debian's python3-prometheus-client), every
/// value checked against what the camera did: a photo, a movie, the tone's level, alarms watched and off, the
/// folder's free space; the token rules of the API apply to it.
@Suite(.serialized) struct MetricsTests {
    struct Sample: Decodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// Parses exposition text with prometheus_client.parser (it rejects malformed text).
    static func parse(_ text: String, in folder: String) throws -> [Sample] {
        try text.write(toFile: "\(folder)/metrics.txt", atomically: true, encoding: .utf8)
        let script = """
            import json, math, sys
            from prometheus_client.parser import text_string_to_metric_families
            samples = []
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    value = s.value if math.isfinite(s.value) else (-1e308 if s.value < 0 else 1e308)
                    samples.append({"name": s.name, "labels": s.labels, "value": value})
            print(json.dumps(samples))
            """
        let run = try Processes.run("/usr/bin/python3", ["-c", script, "\(folder)/metrics.txt"], timeout: 30)
        guard run.status == 0 else { throw TestError("prometheus_client could not parse /metrics: \(run.standardError)") }
        return try JSONDecoder().decode([Sample].self, from: Data(run.standardOutput.utf8))
    }

    @Test func metricsAreWhatTheCameraDid() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = CameraServer.Options(listen: "127.0.0.1:0", recordings: "\(folder)/recordings", video: "lavfi:testsrc2=size=352x288",
                                           audio: "lavfi:sine", preset: "352x288")
        options.alarms = [.init(kind: .silence), .init(kind: .black)]
        let server = try CameraServer(options)
        let started = try server.start()
        defer { server.stop() }
        let client = HTTPTestClient(port: started.port)
        #expect(try client.request("POST", "/api/photo").status == 200)
        let movie = try client.request("POST", "/api/movie/start", body: #"{"maxDuration": 1}"#)
        #expect(movie.status == 200)
        #expect(LiveServers.waitUntil(seconds: 20) { (try? client.request("GET", "/api/status"))?.object["recording"] == nil })
        usleep(300_000)
        let response = try client.request("GET", "/metrics")
        #expect(response.status == 200 && response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = try MetricsTests.parse(response.text, in: folder)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }
        let recordings = try #require(try client.request("GET", "/api/recordings").json as? [[String: Any]])
        let movieEntry = try #require(recordings.first { ($0["name"] as? String)?.hasSuffix(".mov") == true })
        let inspected = try MediaInspection(path: "\(folder)/recordings/\(movieEntry["name"] as! String)")
        #expect(value("reel_build_info", ["version": "0.1.0"]) == 1)
        #expect((value("reel_uptime_seconds") ?? 0) > 1)
        #expect(value("reel_camera_running") == 1 && value("reel_movie_recording") == 0 && value("reel_movie_paused") == 0)
        #expect(value("reel_photos_total") == 1 && value("reel_movies_total") == 1, "\(response.text)")
        #expect(value("reel_encoded_frames_total") == Double(inspected.videoFrames), "the movie's \(inspected.videoFrames) pictures")
        #expect(value("reel_written_bytes_total") == Double(movieEntry["bytes"] as? Int ?? -1), "the movie's size")
        #expect(value("reel_dropped_frames_total") == 0)
        #expect((value("reel_captured_frames_total") ?? 0) >= Double(inspected.videoFrames))
        let peak = value("reel_audio_peak_dbfs", ["channel": "1"]) ?? 0, rms = value("reel_audio_rms_dbfs", ["channel": "1"]) ?? 0
        #expect(abs(peak - -18.06) <= 0.5 && abs(rms - -21.07) <= 0.5, "the sine (1/8 of full scale): peak \(peak), rms \(rms)")
        #expect(value("reel_alarm_active", ["kind": "silence"]) == 0 && value("reel_alarm_active", ["kind": "black"]) == 0)
        var stats = statvfs()
        #expect(statvfs("\(folder)/recordings", &stats) == 0)
        let free = Double(stats.f_bavail) * Double(stats.f_frsize)
        let reported: Double = value("reel_recordings_free_bytes") ?? 0
        let tolerance: Double = max(64 * 1024 * 1024, free / 100)
        #expect(abs(reported - free) < tolerance, "free space \(reported) vs \(free)")
        #expect(value("reel_preview_viewers") == 0)

        // Beyond loopback the token rules apply: the metrics of a server with a token need it.
        let guarded = try CameraServer(.init(listen: "127.0.0.1:0", recordings: "\(folder)/r2", token: "0123456789abcdef0123",
                                             video: nil, audio: nil, startsCamera: false))
        let other = try guarded.start()
        defer { guarded.stop() }
        let guardedClient = HTTPTestClient(port: other.port)
        #expect(try guardedClient.request("GET", "/metrics").status == 401)
        let allowed = try guardedClient.request("GET", "/metrics", headers: ["Authorization": "Bearer 0123456789abcdef0123"])
        let guardedSamples = try MetricsTests.parse(allowed.text, in: folder)
        #expect(allowed.status == 200 && guardedSamples.contains { $0.name == "reel_camera_running" && $0.value == 0 })
    }

    @Test func textIsWhatPrometheusReads() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = PrometheusText()
        text.add("reel_test", .gauge, "A help with a \\ backslash\nand a line.", [
            .init(labels: [("url", "srt://host:1?a=\"b\"\\c\nd")], value: -.infinity),
            .init(labels: [("url", "plain")], value: 0.125),
        ])
        text.add("reel_empty", .gauge, "Left out: no samples.", [])
        let samples = try MetricsTests.parse(text.text, in: folder)
        #expect(samples.count == 2 && samples[0].labels["url"] == "srt://host:1?a=\"b\"\\c\nd" && samples[0].value == -1e308)
        #expect(samples[1].value == 0.125 && !text.text.contains("reel_empty"))
    }
}
