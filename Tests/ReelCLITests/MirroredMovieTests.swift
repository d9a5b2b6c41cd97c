import Foundation
import ReelTestSupport
import Testing

/// Issue 24, item 11: a mirrored display matrix (`tkhd` a = -1, as a front camera's unmirrored movie has)
/// is a mirror, not a 180° turn (FFmpeg 5.1's av_display_rotation_get reads only an angle): a transcode keeps
/// the matrix as it was, a grab mirrors the picture, and probe says so.
@Suite struct MirroredMovieTests {
    /// A copy of `source` whose video track's matrix mirrors the picture left to right.
    static func mirroredCopy(of source: String, to path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let tkhd = Array("tkhd".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == tkhd })
        #expect(bytes[at + 4] == 0, "a version 0 tkhd")
        let matrix = at - 4 + 8 + 40  // after the box header, version/flags, times, ids, duration, layer, volume
        #expect(Array(bytes[matrix..<matrix + 4]) == [0, 1, 0, 0], "a = 1.0 before")
        bytes.replaceSubrange(matrix..<matrix + 4, with: [0xFF, 0xFF, 0, 0])  // -1.0 in 16.16
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func grey(_ path: String) throws -> [UInt8] {
        try TestInputs.ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "\(path).grey"])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(path).grey")))
    }

    @Test func aMirrorIsKeptByTranscodeAndAppliedByGrab() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.movie("\(folder)/m.mp4", seconds: 1)
        try Self.mirroredCopy(of: "\(folder)/m.mp4", to: "\(folder)/mirror.mp4")

        let probe = try TestInputs.json(try Processes.reel(["probe", "mirror.mp4", "--json"], currentDirectory: folder).standardOutput)
        let video = (probe["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "video" }
        #expect(video?["mirrored"] as? Bool == true && video?["rotation"] as? Int == 0, "\(video ?? [:])")

        #expect(try Processes.reel(["transcode", "mirror.mp4", "t.mov", "--quiet"], currentDirectory: folder).status == 0)
        let matrix = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream_side_data",
                                                            "\(folder)/t.mov"]).standardOutput
        #expect(matrix.contains("-65536           0           0") && matrix.contains("0       65536           0"), "\(matrix)")

        let grab = try Processes.reel(["grab", "mirror.mp4", "g.png", "--at", "0.5"], currentDirectory: folder)
        #expect(grab.status == 0, "\(grab.standardError)")
        try TestInputs.ffmpeg(["-ss", "0.5", "-i", "\(folder)/m.mp4", "-frames:v", "1", "-vf", "hflip", "\(folder)/h.png"])
        try TestInputs.ffmpeg(["-ss", "0.5", "-i", "\(folder)/m.mp4", "-frames:v", "1", "-vf", "hflip,vflip", "\(folder)/r.png"])
        let grabbed = try Self.grey("\(folder)/g.png"), mirrored = try Self.grey("\(folder)/h.png"), turned = try Self.grey("\(folder)/r.png")
        func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
            Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, min(a.count, b.count)))
        }
        #expect(grabbed.count == mirrored.count && difference(grabbed, mirrored) < 1, "against the mirror: \(difference(grabbed, mirrored))")
        #expect(difference(grabbed, turned) > 10, "not a 180° turn")
    }
}
