import Foundation
import ReelTestSupport
import Testing

/// Real capture through libavdevice's x11grab: a virtual X server (Xvfb, installed by `make test`) shows a
/// solid colour, and the recorded movie must show it.
@Suite(.serialized) struct ScreenCaptureTests {
    @Test func recordsTheScreenThroughX11Grab() throws {
        let display = try VirtualDisplay.start()
        defer { display.stop() }
        try #require(try Processes.shell("DISPLAY=:\(display.number) xsetroot -solid '#ff0000'").status == 0)
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "screen.mov", "--video", "x11grab::\(display.number)", "--audio", "none",
                                         "--preset", "352x288", "--max-duration", "1.5", "--json"],
                                        currentDirectory: folder, timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let movie = try MediaInspection(path: "\(folder)/screen.mov")
        #expect(movie.width == 352 && movie.height == 288)
        #expect(movie.videoFrames >= 40, "frames: \(movie.videoFrames)")
        let rgb = "\(folder)/frame.rgb"
        let decode = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", "\(folder)/screen.mov", "-vf", "select=eq(n\\,20)",
                                                           "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", rgb])
        try #require(decode.status == 0, "\(decode.standardError)")
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rgb)))
        // Away from the centre, where X draws its cursor (x11grab's draw_mouse is on by default).
        let probe = (80 * 352 + 100) * 3
        #expect(pixels[probe] > 200 && pixels[probe + 1] < 60 && pixels[probe + 2] < 60,
                "pixel \(pixels[probe]),\(pixels[probe + 1]),\(pixels[probe + 2]) is not the screen's red")
    }
}

extension ScreenCaptureTests {
    /// The X server goes away mid-recording: the recording ends with deviceLost, promptly, and the file
    /// holds what was captured.
    @Test func losingTheDisplayEndsWithDeviceLostAndAPlayableFile() throws {
        let display = try VirtualDisplay.start()
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try Processes.start(Processes.reelExecutable,
                                          ["record", "lost.mov", "--video", "x11grab::\(display.number)", "--audio", "none",
                                           "--preset", "352x288", "--json"], currentDirectory: folder)
        // Lose the display 1.5 s after the recording has really started (a loaded machine starts it late).
        #expect(Processes.waitForFile("\(folder)/lost.mov"), "the recording did not start")
        usleep(1_500_000)
        display.stop()
        let stoppedAt = Date()
        let result = Processes.finish(running, timeout: 15)
        #expect(Date().timeIntervalSince(stoppedAt) < 3, "the loss must end the recording within seconds")
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["stopReason"] as? String == "deviceLost")
        #expect(json["recordedSuccessfully"] as? Bool == true)
        #expect((json["error"] as? String)?.contains("x11grab") == true)
        let movie = try MediaInspection(path: "\(folder)/lost.mov")
        #expect(movie.videoFrames > 20 && movie.videoFrames == json["videoFrames"] as? Int)
    }
}

/// An Xvfb server on a free display number, for the duration of a test.
struct VirtualDisplay {
    let number: Int
    let process: Process

    static func start() throws -> VirtualDisplay {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            throw SetupError("Xvfb is not installed: run the tests through `make test`, which installs xvfb")
        }
        // -displayfd: Xvfb picks a free display number itself and writes it to standard output once it
        // accepts connections (no probing of socket files, no race with other servers).
        let running = try Processes.start("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp",
                                                              "-noreset"])
        let process = running.process
        var number: Int? = nil
        for _ in 0..<100 where number == nil && process.isRunning {
            let output = running.outputSoFar()
            if output.hasSuffix("\n") { number = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if number == nil { usleep(50_000) }
        }
        guard let number else {
            kill(process.processIdentifier, SIGKILL)
            throw SetupError("Xvfb did not report a display within 5 s: \(Processes.finish(running, timeout: 1).standardError)")
        }
        return VirtualDisplay(number: number, process: process)
    }

    func stop() {
        // SIGKILL: a child started from a test thread may inherit a mask that blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
