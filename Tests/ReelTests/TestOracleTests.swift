import Foundation
import ReelTestSupport
import Testing

/// The tests' own oracles, checked on movies ffmpeg makes: the numbers the pictures carry survive H.264
/// (and the wide ones wrap at 4096), and the stepped tone tells sound that is off its pictures.
@Suite struct TestOracleTests {
    @Test func wideNumbersSurviveH264AndWrapAt4096() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30", offset: 4000, wide: true), "-frames:v", "200",
                               "-c:v", "libx264", "-preset", "veryfast", "\(folder)/wide.mov"])
        let expected = (4000..<4200).map { $0 % 4096 }
        #expect(try TestInputs.frameNumbers("\(folder)/wide.mov", wide: true) == expected)
        #expect(try TestInputs.frameNumbers("\(folder)/wide.mov") == expected.map { $0 % 256 }, "the narrow reading ignores the high bits")
    }

    @Test func theSteppedToneTellsSoundOffItsPictures() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func movie(_ name: String, soundAhead: Double) throws -> String {
            let path = "\(folder)/\(name).mov"
            try TestInputs.ffmpeg(["-f", "lavfi", "-i", TestInputs.numberedPictures(rate: "30", wide: true), "-f", "lavfi", "-i", SteppedTone.source,
                                   "-af", "atrim=start=\(soundAhead),asetpts=PTS-STARTPTS", "-t", "3", "-c:v", "libx264", "-preset", "veryfast",
                                   "-c:a", "aac", path])
            return path
        }
        let right = try SteppedTone.misplacedPictures(in: try movie("right", soundAhead: 0), wide: true)
        #expect(right.checked >= 50 && right.wrong.isEmpty, "\(right)")
        // 20 ms off: sound at the picture's pitch only when the picture's middle is more than 20 ms from a step.
        let off = try SteppedTone.misplacedPictures(in: try movie("off", soundAhead: 0.02), wide: true)
        #expect(off.wrong.count >= off.checked / 4, "\(off.wrong.count) of \(off.checked) found at another pitch")
    }
}
