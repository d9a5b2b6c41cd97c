import Foundation
import ReelTestSupport
import Testing

/// Issue 11: a finalization whose every on-disk state opens and plays. A real recording is run under an
/// LD_PRELOAD shim (Tests/WriteLog/writelog.c) that logs each write, truncation and sync to the movie; the
/// test replays the log and checks every state a kill or a power cut could leave: cut after each write, and
/// with any subset of the writes no sync had yet made durable. ffmpeg, GStreamer and MediaInfo read each one.
@Suite struct FinalizationStatesTests {
    enum Operation {
        case write(offset: Int, bytes: [UInt8])
        case truncate(length: Int)
        case sync
    }

    static func parse(_ log: [UInt8]) -> [Operation] {
        var operations: [Operation] = []
        var index = 0
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(log[at + $1]) << (8 * $1) } }
        while index + 17 <= log.count {
            let (op, offset, length) = (log[index], u64(index + 1), u64(index + 9))
            switch op {
            case UInt8(ascii: "W"):
                operations.append(.write(offset: offset, bytes: Array(log[index + 17 ..< index + 17 + length])))
                index += 17 + length
            case UInt8(ascii: "T"):
                operations.append(.truncate(length: offset))
                index += 17
            default:
                operations.append(.sync)
                index += 17
            }
        }
        return operations
    }

    static func apply(_ operations: [Operation]) -> [UInt8] {
        var file: [UInt8] = []
        for operation in operations {
            switch operation {
            case .write(let offset, let bytes):
                if file.count < offset + bytes.count { file += Array(repeating: 0, count: offset + bytes.count - file.count) }
                file.replaceSubrange(offset ..< offset + bytes.count, with: bytes)
            case .truncate(let length):
                if length < file.count { file.removeSubrange(length...) } else { file += Array(repeating: 0, count: length - file.count) }
            case .sync:
                break
            }
        }
        return file
    }

    /// Builds the shim with the C compiler `make test` installs.
    static func buildShim(in folder: String) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../WriteLog/writelog.c").standardizedFileURL.path
        let library = "\(folder)/writelog.so"
        let build = try Processes.run("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"])
        guard build.status == 0 else { throw PictureComparison.SetupFailure("cc: \(build.standardError)") }
        return library
    }

    @Test func everyStateOfAFinalizationPlaysInEveryReader() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shim = try Self.buildShim(in: folder)
        let movie = "\(folder)/take.mov", log = "\(folder)/writes.log"
        let result = try Processes.run(Processes.reelExecutable, [
            "record", movie, "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", "low",
            "--max-duration", "2", "--fragment-interval", "0.5", "--quiet"],
            environment: ["LD_PRELOAD": shim, "REEL_WRITE_LOG": log, "REEL_WRITE_LOG_TARGET": movie])
        #expect(result.status == 0, "\(result.standardError)")
        let operations = Self.parse(Array(try Data(contentsOf: URL(fileURLWithPath: log))))
        #expect(Self.apply(operations) == Array(try Data(contentsOf: URL(fileURLWithPath: movie))), "the log replays the file")
        let total = try IndependentReaders.ffprobe(movie).videoFrames
        #expect(total == 30)

        // Finalization starts after the last sync before its truncation of torn data.
        let truncation = try #require(operations.lastIndex { if case .truncate = $0 { return true } else { return false } })
        let windowStart = operations[..<truncation].lastIndex { if case .sync = $0 { return true } else { return false } } ?? 0
        let beforeFinalization = Self.apply(Array(operations[...windowStart]))
        let fragmented = try Self.read(beforeFinalization, in: folder).videoFrames
        #expect(fragmented > 0 && fragmented < total, "the fragments on disk when the stop came: \(fragmented)")

        // Every state from the stop on: each prefix, and each subset of the writes not yet synced.
        var seen = Set<[UInt8]>()
        var checked = 0
        for end in windowStart ..< operations.count {
            let lastSync = operations[...end].lastIndex { if case .sync = $0 { return true } else { return false } } ?? 0
            let durable = Array(operations[...lastSync])
            let pending = Array(operations[(lastSync + 1) ..< (end + 1)]).filter { if case .sync = $0 { return false } else { return true } }
            try #require(pending.count <= 8, "too many unsynced writes to enumerate: \(pending.count)")
            for mask in 0 ..< (1 << pending.count) {
                let kept = pending.indices.filter { mask & (1 << $0) != 0 }.map { pending[$0] }
                let state = Self.apply(durable + kept)
                guard seen.insert(state).inserted else { continue }
                checked += 1
                let reading = try Self.read(state, in: folder)
                let synced = kept.count == pending.count && lastSync > truncation  // the index is durable
                #expect(reading.videoFrames == fragmented || reading.videoFrames == total,
                        "state \(checked) (after operation \(end), writes kept \(mask)): \(reading)")
                if synced { #expect(reading.videoFrames == total, "after the index sync: \(reading)") }
            }
        }
        #expect(checked >= 4, "states checked: \(checked)")
    }

    /// Reads a state with ffmpeg (a clean decode), GStreamer and MediaInfo; they must agree on the frames.
    static func read(_ state: [UInt8], in folder: String) throws -> IndependentReaders.Reading {
        let path = "\(folder)/state.mov"
        try Data(state).write(to: URL(fileURLWithPath: path))
        let problems = try CleanDecode.problems(in: path)
        #expect(problems.isEmpty, "ffmpeg: \(problems)")
        let ffprobe = try IndependentReaders.ffprobe(path)
        let gstreamer = try IndependentReaders.gstreamer(path)
        let mediainfo = try IndependentReaders.mediainfo(path)
        #expect(gstreamer.problems.isEmpty && abs(gstreamer.videoFrames - ffprobe.videoFrames) <= 1,
                "GStreamer \(gstreamer) against ffprobe \(ffprobe)")
        #expect(abs(mediainfo.videoFrames - ffprobe.videoFrames) <= 1, "MediaInfo \(mediainfo) against ffprobe \(ffprobe)")
        return ffprobe
    }
}
