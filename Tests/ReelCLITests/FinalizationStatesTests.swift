import Foundation
import ReelTestSupport
import Testing

/// Issue 11: a finalization whose every on-disk state opens and plays. A real recording is run under an
/// LD_PRELOAD shim (Tests/WriteLog/writelog.c) that logs each write, truncation and sync to the movie; the
/// test replays the log and checks every state a kill or a power cut could leave: cut after each write, and
/// with any subset of the writes no sync had yet made durable. ffmpeg, GStreamer, MediaInfo and Chromium read
/// each one; MPlayer and libquicktime each finalized one.
@Suite struct FinalizationStatesTests {
    @Test func everyStateOfAFinalizationPlaysInEveryReader() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/take.mov"
        let (result, operations) = try WriteLog.reel([
            "record", movie, "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "low",
            "--max-duration", "2", "--fragment-interval", "0.5", "--quiet"], writing: movie, in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(WriteLog.apply(operations) == Array(try Data(contentsOf: URL(fileURLWithPath: movie))), "the log replays the file")
        let total = try IndependentReaders.ffprobe(movie).videoFrames
        #expect(total == 30)

        // Finalization starts after the last sync before its truncation of torn data.
        let truncation = try #require(operations.lastIndex { $0.isTruncate })
        let windowStart = operations[..<truncation].lastIndex { $0.isSync } ?? 0
        let beforeFinalization = WriteLog.apply(Array(operations[...windowStart]))
        let fragmented = try Self.read(beforeFinalization, in: folder).videoFrames
        #expect(fragmented > 0 && fragmented < total, "the fragments on disk when the stop came: \(fragmented)")

        // Every state from the stop on: each prefix, and each subset of the writes not yet synced.
        var seen = Set<[UInt8]>()
        var checked = 0
        for end in windowStart ..< operations.count {
            let lastSync = operations[...end].lastIndex { $0.isSync } ?? 0
            let durable = Array(operations[...lastSync])
            let pending = Array(operations[(lastSync + 1) ..< (end + 1)]).filter { !$0.isSync }
            try #require(pending.count <= 8, "too many unsynced writes to enumerate: \(pending.count)")
            for mask in 0 ..< (1 << pending.count) {
                let kept = pending.indices.filter { mask & (1 << $0) != 0 }.map { pending[$0] }
                let state = WriteLog.apply(durable + kept)
                guard seen.insert(state).inserted else { continue }
                checked += 1
                let reading = try Self.read(state, in: folder, total: total)
                let synced = kept.count == pending.count && lastSync > truncation  // the index is durable
                #expect(reading.videoFrames == fragmented || reading.videoFrames == total,
                        "state \(checked) (after operation \(end), writes kept \(mask)): \(reading)")
                if synced { #expect(reading.videoFrames == total, "after the index sync: \(reading)") }
            }
        }
        #expect(checked >= 4, "states checked: \(checked)")
    }

    /// Reads a state with ffmpeg (a clean decode), GStreamer and MediaInfo; they must agree on the frames.
    /// A state with the `total` frames is read by MPlayer and libquicktime as well.
    static func read(_ state: [UInt8], in folder: String, total: Int? = nil) throws -> IndependentReaders.Reading {
        let path = "\(folder)/state.mov"
        try Data(state).write(to: URL(fileURLWithPath: path))
        let problems = try CleanDecode.problems(in: path)
        #expect(problems.isEmpty, "ffmpeg: \(problems)")
        let ffprobe = try IndependentReaders.ffprobe(path)
        let gstreamer = try IndependentReaders.gstreamer(path)
        let mediainfo = try IndependentReaders.mediainfo(path)
        #expect(gstreamer.problems.isEmpty && abs(gstreamer.videoFrames - ffprobe.videoFrames) <= 1,
                "GStreamer \(gstreamer) against ffprobe \(ffprobe)")
        #expect(ffprobe.problems.isEmpty && mediainfo.problems.isEmpty, "ffprobe: \(ffprobe.problems) MediaInfo: \(mediainfo.problems)")
        #expect(abs(mediainfo.videoFrames - ffprobe.videoFrames) <= 1, "MediaInfo \(mediainfo) against ffprobe \(ffprobe)")
        let chromium = try IndependentReaders.chromium(path)
        #expect(chromium.problems.isEmpty, "\(chromium.problems)")
        // A finalized state (all the frames, no top-level fragment left) is also a plain movie for readers that
        // know no fragments (issue 24): MPlayer's mov demuxer and libquicktime, both quick. xine (which plays
        // at normal speed), Firefox and exiftool's round trip are left to IndependentReadersTests.
        if let total, ffprobe.videoFrames == total, !Atoms.topLevel(path: path).contains(where: { $0.type == "moof" }) {
            for (reader, reading) in [("MPlayer", try IndependentReaders.mplayer(path)), ("libquicktime", try IndependentReaders.libquicktime(path))] {
                #expect(reading.problems.isEmpty && abs(reading.videoFrames - total) <= 1, "\(reader) \(reading) against ffprobe \(ffprobe)")
            }
        }
        return ffprobe
    }
}
