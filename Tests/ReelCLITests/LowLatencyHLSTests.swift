import Foundation
@testable import Reel
import ReelTestSupport
import Testing

/// Issue 26: `reel record --live DIR --low-latency` writes Low-Latency HLS: each segment also as parts
/// (EXT-X-PART) listed as soon as they are written, the next one as a preload hint. The pictures carry their
/// number, so what the parts hold is checked picture by picture.
@Suite struct LowLatencyHLSTests {
    /// Each segment's parts, one after the other, are the segment byte for byte; each part alone (after the
    /// init segment) holds as many pictures as its duration says, and an independent one starts with a
    /// keyframe and decodes alone.
    static func checkParts(_ folder: String, _ check: HLSPlaylistCheck) throws {
        let initSegment = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/init.mp4"))
        for entry in check.entries where !entry.parts.isEmpty {
            let joined = try entry.parts.reduce(Data()) { $0 + (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($1.uri)"))) }
            #expect(joined == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(entry.uri)"))), "\(entry.uri) is its parts")
        }
        for part in (check.entries.flatMap(\.parts) + check.openParts).suffix(12) {
            let alone = "\(folder)/../part-alone.mp4"
            defer { try? FileManager.default.removeItem(atPath: alone) }
            try (initSegment + Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(part.uri)"))).write(to: URL(fileURLWithPath: alone))
            let pictures = Int((part.duration * 30).rounded())
            #expect(try TestInputs.videoPacketTimes(alone).count == pictures, "\(part.uri) alone")
            if part.isIndependent {
                #expect(try SegmentInspection.startsWithKeyframe(alone), "\(part.uri) starts with a keyframe")
                #expect(try MediaInspection(path: alone).videoFrames == pictures, "\(part.uri) decodes alone")
            }
        }
    }

    @Test func partsMakeUpTheSegmentsAndHoldTheMoviesPictures() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "6", "--live", "hls", "--live-segment", "2",
                                         "--live-keep", "all", "--low-latency"] + LiveStreamTests.sources, currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let live = try #require((try TestInputs.json(result.standardOutput)["live"] as? [[String: Any]])?.first)
        #expect(live["segments"] as? Int == 3 && live["parts"] as? Int == 12 && live["droppedPackets"] as? Int == 0, "\(live)")
        let check = try LiveStreamTests.checkStream("\(folder)/hls", segmentPictures: [60, 60, 60])
        #expect(check.partTarget == 0.5 && check.partHoldBack == 1.5, "\(check)")
        // Parts are listed for the last three target durations (6 s): here every segment's.
        #expect(check.entries.map(\.parts.count) == [4, 4, 4])
        #expect(check.entries.flatMap(\.parts).allSatisfy { abs($0.duration - 0.5) < 1e-6 })
        #expect(check.entries.flatMap(\.parts).map(\.isIndependent) == (0..<12).map { $0 % 4 == 0 })
        try LowLatencyHLSTests.checkParts("\(folder)/hls", check)
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == TestInputs.frameNumbers("\(folder)/movie.mov"))
        // A plain folder is for any web server: it does not claim blocking reloads, which only a server that
        // holds requests can answer.
        #expect(!check.canBlockReload)
        // Part durations of a size that does not fit the frame rate are whole pictures: 0.3 s at 30 fps is 9.
        let odd = try Processes.reel(["record", "odd.mov", "--max-duration", "2", "--live", "odd", "--live-segment", "1",
                                      "--live-part", "0.3"] + LiveStreamTests.sources, currentDirectory: folder)
        #expect(odd.status == 0, "\(odd.standardError)")
        let oddCheck = HLSPlaylistCheck(try String(contentsOfFile: "\(folder)/odd/index.m3u8", encoding: .utf8))
        #expect(oddCheck.problems.isEmpty && oddCheck.partTarget == 0.3, "\(oddCheck.problems)")
    }

    /// While a paced capture records, every playlist a reader finds passes the rules (parts included), the
    /// parts it names are whole, and the preload hint names the part that comes next.
    @Test func aLiveRecordingPublishesEachPartAsItGoes() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = ["--video", "lavfi:\(TestInputs.numberedPictures(rate: "30"))", "--audio", "lavfi:sine=frequency=440",
                       "--preset", "352x288", "--size", "64x64", "--quiet", "--json"]
        let running = try Processes.start(Processes.reelExecutable, ["record", "movie.mov", "--live", "hls", "--live-segment", "1",
                                                                    "--low-latency", "--live-part", "0.25", "--max-duration", "30"] + sources,
                                          currentDirectory: folder)
        var seenParts: [String] = []
        var hints: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, seenParts.count < 16 {
            if let text = try? String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8) {
                let check = HLSPlaylistCheck(text)
                #expect(check.problems.isEmpty && !check.isEnded, "mid-way: \(check.problems)")
                let parts = check.entries.flatMap(\.parts) + check.openParts
                if let part = parts.last, part.uri != seenParts.last {
                    let newest = part.uri
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/hls/init.mp4"))
                        + Data(contentsOf: URL(fileURLWithPath: "\(folder)/hls/\(newest)"))
                    try bytes.write(to: URL(fileURLWithPath: "\(folder)/newest.mp4"))
                    #expect(try TestInputs.videoPacketTimes("\(folder)/newest.mp4").count == Int((part.duration * 30).rounded()), "\(newest) is whole")
                    seenParts.append(newest)
                    if let hint = check.preloadHint { hints.append(hint) }
                }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(running.process.processIdentifier, SIGINT)
        let result = Processes.finish(running)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(seenParts.count >= 16, "parts appeared one by one: \(seenParts)")
        // Each hint named the part that was published next (the reader may miss some on a busy machine).
        let named = zip(hints, seenParts.dropFirst()).filter { $0 == $1 }.count
        #expect(named >= seenParts.count / 2, "hints \(hints) against parts \(seenParts)")
        let check = HLSPlaylistCheck(try String(contentsOfFile: "\(folder)/hls/index.m3u8", encoding: .utf8))
        #expect(check.problems.isEmpty && check.isEnded && check.preloadHint == nil, "\(check.problems)")
        #expect(try TestInputs.frameNumbers("\(folder)/hls/index.m3u8") == TestInputs.frameNumbers("\(folder)/movie.mov"))
    }

    @Test(arguments: [
        (["--live-part", "0.1"], "--live-part"),
        (["--live-part", "1", "--live-segment", "1"], "do not fit a 1 s segment twice"),
    ])
    func badPartDurations(extra: [String], message: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Processes.reel(["record", "movie.mov", "--max-duration", "1", "--live", "hls"] + extra + LiveStreamTests.sources,
                                        currentDirectory: folder)
        #expect(result.status == 2 && result.standardError.contains(message), "\(result.status): \(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/movie.mov") && !FileManager.default.fileExists(atPath: "\(folder)/hls"))
        let alone = try Processes.reel(["record", "movie.mov", "--max-duration", "1", "--low-latency"] + LiveStreamTests.sources,
                                       currentDirectory: folder)
        #expect(alone.status == 2 && alone.standardError.contains("--low-latency sets up an HLS stream: add --live DIR"), "\(alone.standardError)")
    }
}
