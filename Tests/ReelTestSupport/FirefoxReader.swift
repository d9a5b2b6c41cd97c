import Foundation

/// Firefox ESR (Debian's firefox-esr) as a reader: its own MP4 demuxer (mp4parse, in Rust) and, for H.264 and
/// HEVC, the system's libavcodec, which it dlopens (libavcodec.so.59 in its RDD decoder process, "FFmpeg
/// decoder supports requested type 'video/hevc'" in its log; its bundled libmozavcodec only has the royalty-
/// free codecs). Firefox 153 ESR here plays HEVC movies as well as H.264 ones. Issue 24.
extension IndependentReaders {
    /// Firefox, headless, playing every movie in `paths` in a muted `<video>` at playbackRate 4 to its `ended`
    /// event, and reporting what the element says. One Firefox serves the whole test process (it takes
    /// seconds to start): Tests/IndependentReaders/firefox_probe_server.py, started on first use, runs it with
    /// a throwaway profile, serves it the movies on 127.0.0.1 (byte ranges, as a `<video>` asks for) one at a
    /// time, kills it after 20 s with nothing to play or when this process is gone, and restarts it if it
    /// hangs on a movie. A call waits `timeout` seconds at most (its movies may queue behind other tests').
    ///
    /// - videoFrames: getVideoPlaybackQuality().totalVideoFrames at `ended`. Firefox counts there every
    ///   picture that reached its video sink, shown or dropped (FrameStatistics: presented + dropped), so for
    ///   a complete playback it is the decoded frame count, whatever the playback rate: 60 for a 60-frame
    ///   movie at 1x and at 4x, B-frames or not, H.264 or HEVC. droppedVideoFrames (late at 4x on a loaded
    ///   machine) is in `notes`, not compared; a playback that dropped any is played again (up to twice),
    ///   since Firefox can then count a picture twice. Firefox has no corruptedVideoFrames (never implemented in
    ///   Gecko; the attribute is undefined).
    /// - duration: the element's `duration` (the movie header's, or the longest track's).
    /// - problems: a media error (code and message), a play() refused, no `ended` within 20 s of the
    ///   movie's start, no report at all (Firefox hung or exited, or the call timed out).
    public static func firefox(_ paths: [String], timeout: Double = 120) throws -> [Reading] {
        try firefox(paths, timeout: timeout, replays: true).map(firefoxReading)
    }

    /// The page's reports on `paths`, in order (a report saying there was no answer where there was none).
    private static func firefox(_ paths: [String], timeout: Double, replays: Bool) throws -> [[String: Any]] {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["movies": paths, "timeout": timeout]), as: UTF8.self)
        var response: HTTPTestClient.Response?
        for _ in 0..<2 where response == nil {  // a server that has just exited for idleness is started again
            response = try? HTTPTestClient(port: try FirefoxService.shared.port()).request("POST", "/batch", body: body,
                                                                                            timeout: timeout + 10)
        }
        guard let response, response.status == 200, var reports = response.json as? [[String: Any]], reports.count == paths.count else {
            return paths.map { _ in ["end": "none", "error": "Firefox: no answer from its probe server"] }
        }
        // A playback that dropped pictures (late at 4x on a busy machine) can count some twice in
        // totalVideoFrames (measured: 42 for a 36-picture movie with 17 dropped): such a movie is played
        // again, up to twice, and the playback without drops (else the last) is the reading.
        for _ in 0..<(replays ? 2 : 0) {
            let late = reports.indices.filter { ((reports[$0]["droppedVideoFrames"] as? NSNumber)?.intValue ?? 0) > 0 }
            guard !late.isEmpty else { break }
            let again = try firefox(late.map { paths[$0] }, timeout: timeout, replays: false)
            for (position, index) in late.enumerated() { reports[index] = again[position] }
        }
        return reports
    }

    public static func firefox(_ path: String) throws -> Reading { try firefox([path])[0] }

    static func firefoxReading(_ report: [String: Any]) -> Reading {
        let number = { (key: String) in (report[key] as? NSNumber)?.doubleValue }
        var problems: [String] = []
        if let error = report["error"] as? String { problems.append("media error \(error)") }
        if let refused = report["playError"] as? String { problems.append("play() refused: \(refused)") }
        let end = report["end"] as? String ?? "?"
        if end != "ended" { problems.append("no ended event: \(end) at \(number("currentTime") ?? -1) s") }
        let notes = "\(Int(number("width") ?? 0))x\(Int(number("height") ?? 0)), dropped \(Int(number("droppedVideoFrames") ?? -1))"
            + " at rate \(number("playbackRate") ?? 0)"
        return Reading(videoFrames: Int(number("totalVideoFrames") ?? -1), duration: number("duration") ?? -1,
                       problems: problems.joined(separator: " | "), notes: notes)
    }

}

/// The probe server of this test process (it owns Firefox): started on first use, and again after it exited
/// for idleness.
final class FirefoxService: @unchecked Sendable {
    static let shared = FirefoxService()
    private let lock = NSLock()
    private var server: Processes.Running?
    private var serverPort = 0

    func port() throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let server, server.process.isRunning { return serverPort }
        if let server { _ = Processes.finish(server, timeout: 1) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../IndependentReaders/firefox_probe_server.py").standardizedFileURL.path
        let started = try Processes.start("/usr/bin/python3", [script, "20"])
        let deadline = Date(timeIntervalSinceNow: 10)
        while started.process.isRunning && Date() < deadline {
            if let line = started.outputSoFar().split(separator: "\n").first(where: { $0.hasPrefix("port ") }),
               let port = Int(line.dropFirst(5)) {
                (server, serverPort) = (started, port)
                // Nothing more is read from its output: its files go now (it may outlive this process by a moment).
                try? FileManager.default.removeItem(atPath: started.outputFile)
                try? FileManager.default.removeItem(atPath: started.errorFile)
                return port
            }
            usleep(20_000)
        }
        started.process.terminate()
        let result = Processes.finish(started, timeout: 2)
        throw PictureComparison.SetupFailure("the Firefox probe server did not start: \(result.standardError)")
    }
}
