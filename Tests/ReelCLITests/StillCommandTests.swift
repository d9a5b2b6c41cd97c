import Foundation
import ReelTestSupport
import Testing

@Suite(.serialized) struct StillCommandTests {
    static let fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "352x288"]

    @Test func captureTapAndHoldFromTheCommandLine() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tap = try Processes.reel(["capture", "tap", "--max-duration", "0.3", "--json"] + Self.fast, currentDirectory: folder)
        #expect(tap.status == 0, "\(tap.standardError)")
        let tapJSON = try #require(try JSONSerialization.jsonObject(with: Data(tap.standardOutput.utf8)) as? [String: Any])
        #expect(tapJSON["kind"] as? String == "photo" && tapJSON["photo"] as? String == "tap.jpg")
        #expect(tapJSON["stopReason"] as? String == "maxDurationReached" && tapJSON["duration"] != nil)
        #expect(Scratch.files(in: folder) == ["tap.jpg"])

        let hold = try Processes.reel(["capture", "hold", "--max-duration", "1.2", "--still", "hold-first.jpg", "--json"] + Self.fast,
                                      currentDirectory: folder)
        #expect(hold.status == 0, "\(hold.standardError)")
        let holdJSON = try #require(try JSONSerialization.jsonObject(with: Data(hold.standardOutput.utf8)) as? [String: Any])
        #expect(holdJSON["kind"] as? String == "movie" && holdJSON["movie"] as? String == "hold.mov")
        #expect(holdJSON["videoFrames"] as? Int == 36)
        #expect(Scratch.files(in: folder) == ["hold-first.jpg", "hold.mov", "tap.jpg"])

        // A signal ends a live press; 0.3 s is a tap under a 1 s threshold.
        let running = try Processes.start(Processes.reelExecutable,
                                          ["capture", "signalled", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--json"],
                                          currentDirectory: folder)
        usleep(400_000)
        kill(running.process.processIdentifier, SIGTERM)
        let signalled = Processes.finish(running, timeout: 15)
        #expect(signalled.status == 0, "\(signalled.standardError)")
        #expect(signalled.standardOutput.contains("\"kind\" : \"photo\""))
        #expect(Scratch.files(in: folder).contains("signalled.jpg") && !Scratch.files(in: folder).contains("signalled.mov"))
    }

    /// On a terminal, Enter ends the press (script(1) gives the command a pseudo-terminal as stdin).
    @Test func enterOnATerminalEndsThePress() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Enter at once (before the press has even started) still gives the first frame as a photo.
        for (name, delay, kept) in [("instant", 0.0, "instant.jpg"), ("quick", 0.3, "quick.jpg"), ("long", 1.6, "long.mov")] {
            let command = "\(Processes.reelExecutable) capture \(name) --video lavfi:testsrc2 --audio lavfi:sine --preset low --quiet"
            // timeout(1) bounds script(1) and the capture under it, should Enter ever be missed.
            let result = try Processes.shell(
                "cd \(folder) && (sleep \(delay); printf '\\n') | timeout -k 2 20 script -qec '\(command)' /dev/null", timeout: 30)
            #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
            #expect(Scratch.files(in: folder).contains(kept), "\(name): \(Scratch.files(in: folder))")
        }
        #expect(Scratch.files(in: folder) == ["instant.jpg", "long.mov", "quick.jpg"])
    }

    @Test func grabAndSnapFromTheCommandLine() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try Processes.reel(["record", "m.mov", "--max-duration", "2"] + Self.fast, currentDirectory: folder).status == 0)
        let grab = try Processes.reel(["grab", "m.mov", "g.jpg", "--at", "1.5"], currentDirectory: folder)
        #expect(grab.status == 0 && grab.standardError.isEmpty, "\(grab.standardError)")
        let snap = try Processes.reel(["snap", "s.png", "--video", "lavfi:testsrc2", "--preset", "low"], currentDirectory: folder)
        #expect(snap.status == 0, "\(snap.standardError)")
        #expect(Atoms.pngSignature(path: "\(folder)/s.png"))
        #expect(Scratch.files(in: folder) == ["g.jpg", "m.mov", "s.png"])
    }

    @Test(arguments: [
        (["grab", "m.mov", "late.jpg", "--at", "10"], "past the end"),
        (["grab", "missing.mov", "x.jpg"], "cannot read"),
        (["grab", "m.mov", "x.bmp"], ".jpg, .jpeg or .png"),
        (["grab", "m.mov"], "expected INPUT and OUTPUT"),
        (["grab", "m.mov", "x.jpg", "--at", "soon"], "--at"),
        (["snap", "x.jpg", "--video", "v4l2:/dev/video99"], "v4l2:/dev/video99"),
        (["snap", "x.jpg", "--skip-frames", "-2", "--video", "lavfi:testsrc2"], "--skip-frames"),
        (["capture", "c", "--hold-threshold", "-1", "--video", "lavfi:testsrc2"], "--hold-threshold"),
        (["capture", "--video", "lavfi:testsrc2"], "BASENAME"),
        (["record", "r.mov", "--still", "r.gif", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none"], ".jpg, .jpeg or .png"),
        (["record", "r.mov", "--still-quality", "0", "--video", "lavfi:testsrc2?realtime=0", "--audio", "none"], "--still-quality"),
    ])
    func badStillRequestsAreOneLineAndExitTwo(arguments: [String], mentions: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try Processes.reel(["record", "m.mov", "--max-duration", "1"] + Self.fast, currentDirectory: folder).status == 0)
        let result = try Processes.reel(arguments, currentDirectory: folder, timeout: 30)
        #expect(result.status == 2, "exit \(result.status): \(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardError.contains(mentions),
                "stderr: \(result.standardError)")
        #expect(Scratch.files(in: folder) == ["m.mov"], "nothing may be written")
    }
}
