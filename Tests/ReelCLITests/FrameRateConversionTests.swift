import Foundation
import ReelTestSupport
import Testing

/// Issue 11: frame-rate conversion to the preset's rate has an even cadence and no holes. Sources whose
/// pictures carry their own number are transcoded to 30 fps and decoded frame by frame: output frame n must
/// be the source picture on screen at n/30 s (the last one whose time, rounded to the nearest output frame,
/// is at or before it, as ffmpeg's fps filter), every packet one frame long.
@Suite struct FrameRateConversionTests {
    struct Source: Sendable, CustomStringConvertible {
        var rate: String
        /// Source picture k is shown from times[k] seconds.
        var times: @Sendable (Int) -> Double
        /// setpts expression for a variable-rate source (nil: constant rate).
        var timing: String? = nil
        var description: String { timing.map { "VFR \($0)" } ?? "\(rate) fps" }
    }

    static func constant(_ rate: String) -> Source {
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        let fps = parts.count == 2 ? parts[0] / parts[1] : parts[0]
        return Source(rate: rate, times: { Double($0) / fps })
    }

    static let sources: [Source] = [
        constant("24"), constant("25"), constant("30000/1001"), constant("30"), constant("50"), constant("60"),
        // Variable rate: pictures 1/60 and 1/20 s apart in turn (the average is 30 fps, the spacing is not).
        Source(rate: "60", times: { k in Double(k / 2) / 15 + (k % 2 == 1 ? 1.0 / 60 : 0) },
               timing: "(floor(N/2)*4+mod(N,2))/(60*TB)"),
    ]

    @Test(arguments: sources)
    func everyOutputFrameIsThePictureOnScreenAtItsTime(_ source: Source) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = "\(folder)/in.mkv"
        var graph = TestInputs.numberedPictures(rate: source.rate)
        if let timing = source.timing { graph += ",setpts='\(timing)'" }
        // Two seconds of pictures, stored losslessly enough that each number reads back exactly.
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", graph, "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10",
                               "-fps_mode", "passthrough", input])
        let sourceNumbers = try TestInputs.frameNumbers(input)
        let sourceTimes = try TestInputs.videoPacketTimes(input).map(\.time)
        try #require(sourceNumbers.count == sourceTimes.count && sourceNumbers.count > 30)
        #expect(sourceNumbers == Array(0..<sourceNumbers.count).map { $0 % 256 }, "the source reads back")

        let result = try Processes.reel(["transcode", "in.mkv", "out.mov", "--preset", "352x288", "--size", "64x64",
                                         "--fps", "30", "--json"], currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let output = "\(folder)/out.mov"
        let numbers = try TestInputs.frameNumbers(output)
        let packets = try TestInputs.videoPacketTimes(output)
        let lastSourceTime = sourceTimes.last!
        // Output slots up to the source's end (its last picture lasts as long as the interval before it):
        // slot n shows the last picture whose rounded slot is ≤ n.
        let sourceEnd = lastSourceTime + (lastSourceTime - sourceTimes[sourceTimes.count - 2])
        let expectedCount = Int((sourceEnd * 30 + 0.5 + 1e-4).rounded(.down))
        #expect(numbers.count == expectedCount, "\(numbers.count) frames for \(expectedCount)")
        for (slot, number) in numbers.enumerated() {
            let onScreen = sourceTimes.lastIndex { ($0 * 30 + 0.5 + 1e-6).rounded(.down) <= Double(slot) } ?? 0
            #expect(number == onScreen, "output frame \(slot) shows source picture \(number), expected \(onScreen)")
            // A picture is first shown within half an output frame of its own time (repeats come after).
            let firstShowing = slot == 0 || numbers[slot - 1] != number
            if firstShowing && number < sourceTimes.count {
                #expect(abs(sourceTimes[number] - Double(slot) / 30) <= 0.5 / 30 + 1e-3,
                        "picture \(number) at \(sourceTimes[number]) s first shown at \(Double(slot) / 30) s")
            }
        }
        // Constant frame rate: every packet lasts one frame, the times step by one frame, no holes.
        #expect(packets.count == expectedCount)
        for (index, packet) in packets.enumerated() {
            #expect(abs(packet.duration - 1.0 / 30) < 1e-4 && abs(packet.time - Double(index) / 30) < 1e-4,
                    "packet \(index): \(packet)")
        }
        let json = try TestInputs.json(result.standardOutput)
        let repeats = zip(numbers, numbers.dropFirst()).filter { $0 == $1 }.count
        #expect(json["duplicatedFrames"] as? Int == repeats, "\(json)")
        #expect(json["videoFrames"] as? Int == numbers.count)
    }

    @Test func sixtyToThirtyKeepsEveryOtherPicture() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "60"), "-t", "1", "-c:v", "libx264",
                               "-preset", "ultrafast", "-crf", "10", "\(folder)/in.mp4"])
        let result = try Processes.reel(["transcode", "in.mp4", "out.mov", "--preset", "352x288", "--size", "64x64", "--fps", "30"],
                                        currentDirectory: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try TestInputs.frameNumbers("\(folder)/out.mov") == Array(stride(from: 0, to: 60, by: 2)))
    }
}
