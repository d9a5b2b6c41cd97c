import Foundation
import ReelTestSupport
import Testing

/// Issue 24, item 10: an AVI with B-frames stores no timestamp for its last pictures; `grab` gives each the
/// time after the one before it, so every picture the movie shows can be grabbed, up to its end: the same
/// picture as the ffmpeg CLI's `-ss` (the pictures' times come from the packets' decode times, two frames
/// late for the B-frame delay, on both).
@Suite struct TimestamplessFramesTests {
    @Test func theLastPicturesOfAnAVIWithBFramesCanBeGrabbed() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-t", "2", "-c:v", "libx264",
                               "-x264-params", "bframes=3", "-pix_fmt", "yuv420p", "\(folder)/b.avi"])
        let packets = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts",
                                                             "-of", "csv=p=0", "\(folder)/b.avi"]).standardOutput
        #expect(packets.split(separator: "\n").suffix(2).allSatisfy { $0.hasPrefix("N/A") }, "the input really lacks the last timestamps")
        for seconds in [1.97, 1.9, 0.5] {
            let result = try Processes.reel(["grab", "b.avi", "g.png", "--at", String(seconds)], currentDirectory: folder)
            #expect(result.status == 0, "\(seconds): \(result.standardError)")
            try TestInputs.ffmpeg(["-ss", String(seconds), "-i", "\(folder)/b.avi", "-frames:v", "1", "\(folder)/ffmpeg.png"])
            let reference = try TestInputs.frameNumbers("\(folder)/ffmpeg.png")
            let grabbed = try TestInputs.frameNumbers("\(folder)/g.png")
            #expect(reference.count == 1 && grabbed == reference, "\(seconds) s: \(grabbed) against ffmpeg's \(reference)")
            for file in ["g.png", "ffmpeg.png"] { try? FileManager.default.removeItem(atPath: "\(folder)/\(file)") }
        }
        let past = try Processes.reel(["grab", "b.avi", "g.png", "--at", "2.01"], currentDirectory: folder)
        #expect(past.status == 2 && past.standardError.contains("past the end"), "\(past.standardError)")
    }

    /// Item 9: a Matroska file whose first pictures had negative times (the muxer stored no timestamps for
    /// them): they are placed before the first timed picture, a frame apart, so no picture is repeated or
    /// dropped and the video stays with the sound (it was the first picture 17 times, one picture dropped, all
    /// later video 0.5 s late).
    @Test func leadingPicturesWithoutTimestampsKeepTheirPlace() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30"), "-f", "lavfi", "-i", "sine", "-t", "3",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-output_ts_offset", "-0.5",
                               "-avoid_negative_ts", "disabled", "\(folder)/neg.mkv"])
        let packets = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts",
                                                             "-of", "csv=p=0", "\(folder)/neg.mkv"]).standardOutput
        #expect(packets.split(separator: "\n").prefix(10).allSatisfy { $0.hasPrefix("N/A") }, "the input really lacks the first timestamps")
        let result = try Processes.reel(["transcode", "neg.mkv", "out.mov", "--preset", "352x288", "--size", "64x64", "--quiet"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let numbers = try TestInputs.frameNumbers("\(folder)/out.mov")
        // The sound starts 23 ms before the first picture, which is shown from the start (one slot more).
        let steps = zip(numbers, numbers.dropFirst()).map { ($1 - $0 + 256) % 256 }
        #expect(numbers.first == 0 && numbers.last == 89 && steps.filter { $0 != 1 }.count <= 1 && !steps.contains { $0 > 1 },
                "\(numbers)")
        let movie = try MediaInspection(path: "\(folder)/out.mov")
        #expect(abs(movie.videoDuration - movie.audioDuration) < 0.04, "video \(movie.videoDuration) s, audio \(movie.audioDuration) s")
    }
}
