import Foundation
import ReelTestSupport
import Testing

/// Issue 12, row 10: every H.264 output is tagged with its colour (primaries, transfer, matrix, limited range),
/// pictures are converted with the matrix the tag says, stills keep their colours, and HDR comes out as SDR
/// tone-mapped, never relabelled. Inputs are made with the ffmpeg CLI; outputs are checked with ffprobe (tags)
/// and by decoding them (ffmpeg decodes with the tags it finds).
@Suite struct ColourTaggingTests {
    /// FFmpeg's documented HDR-to-SDR recipe, the reference the tone-mapped output is compared with.
    static let toneMapRecipe = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    /// ffprobe's primaries, transfer, matrix and range of the file's video.
    static func tags(_ path: String) throws -> [String] {
        let video = try #require(try FFprobe.stream(path, type: "video"))
        return ["color_primaries", "color_transfer", "color_space", "color_range"].map { video[$0] as? String ?? "none" }
    }

    static func reel(_ arguments: [String], in folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Processes.reel(arguments + (arguments[0] == "transcode" ? ["--quiet"] : []),
                                        currentDirectory: folder, timeout: 60)
        #expect(result.status == 0, "reel \(arguments.joined(separator: " ")): \(result.standardError)",
                sourceLocation: sourceLocation)
    }

    static let presetSizes = ["720p": (1280, 720), "352x288": (352, 288), "960x540": (960, 540)]

    /// Pure red RGB at 1280x720 (a screen, a PNG or ProRes 4444 export): Y 63 with BT.709 (16 + 219 × 0.2126) at
    /// 720p, Y 81 with BT.601 (16 + 219 × 0.299) below 720p, each tagged as converted, so ffmpeg decodes red
    /// again. Packed RGB (qtrle) takes swscale's unscaled path at 720p, planar GBR (libx264rgb) the general one.
    @Test(arguments: [("qtrle", "720p", "bt709", 63), ("libx264rgb", "720p", "bt709", 63),
                      ("qtrle", "352x288", "smpte170m", 81)])
    func rgbIsConvertedWithTheMatrixOfTheOutputsTag(codec: String, preset: String, tag: String, luma: Int) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = codec == "qtrle" ? "red.mov" : "red.mkv"
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "color=red:size=1280x720:rate=30", "-t", "0.2", "-pix_fmt", "rgb24",
                               "-c:v", codec, "\(folder)/\(source)"])
        try Self.reel(["transcode", source, "out.mov", "--preset", preset], in: folder)
        let output = "\(folder)/out.mov"
        #expect(try Self.tags(output) == [tag, tag, tag, "tv"])
        let (width, height) = Self.presetSizes[preset]!
        // The centre is red also when the 16:9 picture is letterboxed into 352x288.
        let y = try PictureComparison.yuv420p(output)[(height / 2) * width + width / 2]
        #expect(abs(Int(y) - luma) <= 2, "Y of red \(y), expected \(luma)")
        let red = PictureComparison.pixel(try PictureComparison.rgb(output), width: width, x: width / 2, y: height / 2)
        #expect(red.red >= 245 && red.green <= 10 && red.blue <= 10, "decoded as \(red)")
    }

    /// An SDR source tagged BT.709 or BT.601 keeps its tags at any output size; an untagged one is taken as
    /// what players assume for its own size and keeps that, tagged (no matrix conversion when scaling). Either
    /// way a colour (0x2060C0, where BT.601 and BT.709 differ by 7 levels of red) decodes as it did in the source.
    @Test(arguments: [
        ("640x360", ["bt709", "bt709", "bt709"], "352x288", ["bt709", "bt709", "bt709"]),
        ("1280x720", ["bt470bg", "smpte170m", "bt470bg"], "720p", ["bt470bg", "smpte170m", "bt470bg"]),
        ("640x360", [], "720p", ["smpte170m", "smpte170m", "smpte170m"]),
        ("1920x1080", [], "352x288", ["bt709", "bt709", "bt709"]),
    ])
    func sdrSourcesKeepTheirColours(size: String, sourceTags: [String], preset: String, expected: [String]) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tagArguments = sourceTags.isEmpty ? [] : ["-color_primaries", sourceTags[0], "-color_trc", sourceTags[1],
                                                      "-colorspace", sourceTags[2]]
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "color=c=0x2060C0:size=\(size):rate=30", "-t", "0.2", "-c:v", "libx264",
                               "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + tagArguments + ["\(folder)/in.mov"])
        try Self.reel(["transcode", "in.mov", "out.mov", "--preset", preset], in: folder)
        #expect(try Self.tags("\(folder)/out.mov") == expected + ["tv"])
        // reel probe reports the same tags.
        let probe = try Processes.reel(["probe", "out.mov"], currentDirectory: folder)
        #expect(probe.standardOutput.contains("colour \(expected.joined(separator: "/"))/tv"), "\(probe.standardOutput)")
        let sourceSize = size.split(separator: "x").compactMap { Int($0) }
        let (width, height) = Self.presetSizes[preset]!
        // Players take an untagged HD picture as BT.709, which the ffmpeg CLI's RGB conversion does only when
        // told: the reference is the source with BT.709 written into its stream (the pictures are untouched).
        var reference = "\(folder)/in.mov"
        if sourceTags.isEmpty && sourceSize[1] >= 720 {
            reference = "\(folder)/tagged.mov"
            try TestInputs.ffmpeg(["-i", "\(folder)/in.mov", "-c", "copy", "-bsf:v",
                                   "h264_metadata=colour_primaries=1:transfer_characteristics=1:matrix_coefficients=1", reference])
        }
        let before = PictureComparison.pixel(try PictureComparison.rgb(reference), width: sourceSize[0],
                                             x: sourceSize[0] / 2, y: sourceSize[1] / 2)
        let after = PictureComparison.pixel(try PictureComparison.rgb("\(folder)/out.mov"), width: width, x: width / 2, y: height / 2)
        let shift = max(abs(before.red - after.red), abs(before.green - after.green), abs(before.blue - after.blue))
        #expect(shift <= 4, "source decodes as \(before), output as \(after)")
    }

    /// JPEG is full-range BT.601 and PNG is RGB: a still of a BT.709 picture is converted from BT.709, so its
    /// colours match the movie's (before: 3.6–3.8 levels off on average over SMPTE HD bars).
    @Test func stillsOfBT709PicturesKeepTheirColours() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "smptehdbars=size=1280x720:rate=30", "-t", "0.2", "-c:v", "libx264",
                               "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", "-color_primaries", "bt709",
                               "-color_trc", "bt709", "-colorspace", "bt709", "\(folder)/bars.mov"])
        try Self.reel(["grab", "bars.mov", "grab.jpg"], in: folder)
        try Self.reel(["grab", "bars.mov", "grab.png"], in: folder)
        try Self.reel(["transcode", "bars.mov", "out.mov", "--preset", "720p", "--still", "first.jpg"], in: folder)
        let source = try PictureComparison.rgb("\(folder)/bars.mov")
        for (still, limit) in [("grab.png", 0.5), ("grab.jpg", 1.0), ("first.jpg", 1.0)] {
            let difference = PictureComparison.meanAbsoluteDifference(try PictureComparison.rgb("\(folder)/\(still)"), source)
            #expect(difference <= limit, "\(still): \(difference) levels from the source on average")
        }
    }

    /// Phone HDR (HEVC 10-bit, HLG, BT.2020) becomes 8-bit BT.709 SDR tone-mapped as FFmpeg's zscale + tonemap
    /// recipe does it, not the HLG signal relabelled; the first-frame still and grab are tone-mapped too.
    @Test func hlgIsToneMappedToBT709() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // SMPTE bars turned into a real HLG signal (SDR white at 203 nits, as BT.2408 puts it).
        try TestInputs.ffmpeg(["-f", "lavfi", "-i", "smptehdbars=size=960x540:rate=30", "-t", "0.2", "-vf",
                               "zscale=tin=bt709:pin=bt709:min=bt709:t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:npl=203,format=yuv420p10le",
                               "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                               "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
                               "-tag:v", "hvc1", "\(folder)/hlg.mov"])
        try TestInputs.ffmpeg(["-i", "\(folder)/hlg.mov", "-vf", Self.toneMapRecipe, "-frames:v", "1", "\(folder)/reference.png"])
        try TestInputs.ffmpeg(["-i", "\(folder)/hlg.mov", "-vf", "format=yuv420p", "-frames:v", "1", "\(folder)/relabelled.png"])
        try Self.reel(["transcode", "hlg.mov", "sdr.mov", "--preset", "960x540", "--still", "first.png"], in: folder)
        try Self.reel(["grab", "hlg.mov", "grab.jpg"], in: folder)
        let output = "\(folder)/sdr.mov"
        #expect(try Self.tags(output) == ["bt709", "bt709", "bt709", "tv"])
        #expect(try FFprobe.stream(output, type: "video")?["pix_fmt"] as? String == "yuv420p")
        let movie = try PictureComparison.psnr(output, against: "\(folder)/reference.png", format: "rgb24")
        let relabelled = try PictureComparison.psnr(output, against: "\(folder)/relabelled.png", format: "rgb24")
        #expect(movie >= 38 && relabelled < 25, "against the recipe \(movie) dB, against the HLG signal as is \(relabelled) dB")
        let first = try PictureComparison.psnr("\(folder)/first.png", against: "\(folder)/reference.png", format: "rgb24")
        let grab = try PictureComparison.psnr("\(folder)/grab.jpg", against: "\(folder)/reference.png", format: "rgb24")
        print("HLG to SDR: \(movie) dB against the recipe, \(relabelled) dB against the relabelled signal; still \(first) dB, grab \(grab) dB")
        #expect(first >= 45 && grab >= 35, "first-frame still \(first) dB, grab \(grab) dB against the recipe")
    }
}
