import Foundation
import ReelTestSupport
import Testing

/// Issue 12, row 11: pictures with non-square pixels come out as players show them. The input is PAL 16:9 as DV
/// stores it: 720x576 with 64:45 pixels, shown 1024x576. Its test card is a white disc on grey drawn round at
/// 1024x576 and squeezed to 720 wide, so a disc that comes out as wide as it is tall proves the geometry.
@Suite struct PixelAspectTests {
    /// Where the pixel aspect is stated: in the H.264 stream, only in the container (QuickTime's pasp), or in
    /// DV's own header.
    enum Flavour: String, CaseIterable, Sendable {
        case codec, container, dv
    }

    static let squeezedCard = "geq=lum='if(lt(hypot(X-512\\,Y-288)\\,192)\\,235\\,128)':cb=128:cr=128,scale=720:576"

    static func makeAnamorphic(_ flavour: Flavour, in folder: String) throws {
        let card = ["-f", "lavfi", "-i", "color=black:size=1024x576:rate=25", "-t", "0.2"]
        let h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
        switch flavour {
        case .codec:
            try TestInputs.ffmpeg(card + ["-vf", squeezedCard + ",setsar=64/45"] + h264 + ["\(folder)/in.mov"])
        case .container:
            try TestInputs.ffmpeg(card + ["-vf", squeezedCard + ",setsar=1"] + h264 + ["\(folder)/square.mov"])
            try TestInputs.ffmpeg(["-i", "\(folder)/square.mov", "-c", "copy", "-aspect", "16:9", "\(folder)/in.mov"])
        case .dv:
            try TestInputs.ffmpeg(card + ["-vf", squeezedCard, "-aspect", "16:9", "-c:v", "dvvideo", "-pix_fmt", "yuv420p",
                                          "\(folder)/in.mov"])
        }
    }

    /// A picture's size, the disc's width and height through the centre, and whether the left and right edges
    /// are black bars (pillarbox) rather than the card's grey.
    struct Geometry: CustomStringConvertible {
        var width = 0, height = 0, discWidth = 0, discHeight = 0
        var pillarbox = false, barsOrGrey = true
        var description: String { "\(width)x\(height), disc \(discWidth)x\(discHeight), pillarbox \(pillarbox)" }
        var discIsRound: Bool { abs(discWidth - discHeight) <= 4 }
    }

    static func geometry(_ path: String) throws -> Geometry {
        let video = try #require(try FFprobe.stream(path, type: "video"))
        var geometry = Geometry()
        geometry.width = video["width"] as? Int ?? 0
        geometry.height = video["height"] as? Int ?? 0
        let pixels = try PictureComparison.rgb(path)
        func luma(_ x: Int, _ y: Int) -> Int { PictureComparison.pixel(pixels, width: geometry.width, x: x, y: y).green }
        let (centreX, centreY) = (geometry.width / 2, geometry.height / 2)
        geometry.discWidth = (0..<geometry.width).filter { luma($0, centreY) > 190 }.count
        geometry.discHeight = (0..<geometry.height).filter { luma(centreX, $0) > 190 }.count
        let edges = [luma(2, centreY), luma(geometry.width - 3, centreY)]
        geometry.pillarbox = edges.allSatisfy { $0 < 30 }
        geometry.barsOrGrey = geometry.pillarbox || edges.allSatisfy { $0 > 100 && $0 < 160 }
        return geometry
    }

    static func reel(_ arguments: [String], in folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Processes.reel(arguments + (arguments[0] == "transcode" ? ["--quiet"] : []),
                                        currentDirectory: folder, timeout: 60)
        #expect(result.status == 0, "reel \(arguments.joined(separator: " ")): \(result.standardError)",
                sourceLocation: sourceLocation)
    }

    /// `grab` writes the picture as players show it: 1024x576 with square pixels (ffmpeg's `scale=iw*sar:ih`).
    @Test(arguments: Flavour.allCases)
    func grabShowsTheDisplayAspect(_ flavour: Flavour) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.makeAnamorphic(flavour, in: folder)
        try Self.reel(["grab", "in.mov", "grab.png"], in: folder)
        let grab = try Self.geometry("\(folder)/grab.png")
        #expect(grab.width == 1024 && grab.height == 576 && grab.discIsRound && !grab.pillarbox && grab.barsOrGrey, "\(grab)")
        #expect(abs(grab.discWidth - 384) <= 4, "\(grab)")
    }

    /// A transcode fits the picture into the preset by its display aspect: 16:9 fills 1280x720 with no bars, and
    /// so do its first-frame still and a snap of it.
    @Test(arguments: Flavour.allCases)
    func transcodeStillAndSnapFitTheDisplayAspect(_ flavour: Flavour) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.makeAnamorphic(flavour, in: folder)
        try Self.reel(["transcode", "in.mov", "out.mov", "--preset", "720p", "--still", "first.png"], in: folder)
        try Self.reel(["snap", "snap.png", "--video", "file:in.mov", "--preset", "720p"], in: folder)
        for picture in ["out.mov", "first.png", "snap.png"] {
            let shown = try Self.geometry("\(folder)/\(picture)")
            #expect(shown.width == 1280 && shown.height == 720 && shown.discIsRound && !shown.pillarbox && shown.barsOrGrey,
                    "\(picture): \(shown)")
        }
    }

    /// The same stored picture with square pixels is 5:4: pillarboxed into 1280x720 (900 wide, bars of 190),
    /// and its disc stays as squeezed as it is stored.
    @Test func squarePixelsOfTheSameSizeArePillarboxed() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "color=black:size=1024x576:rate=25", "-t", "0.2", "-vf",
                               Self.squeezedCard + ",setsar=1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                               "\(folder)/square.mov"])
        try Self.reel(["transcode", "square.mov", "out.mov", "--preset", "720p"], in: folder)
        let shown = try Self.geometry("\(folder)/out.mov")
        #expect(shown.width == 1280 && shown.height == 720 && shown.pillarbox, "\(shown)")
        #expect(abs(shown.discWidth - 336) <= 4 && abs(shown.discHeight - 480) <= 4, "\(shown)")
    }
}
