import FFmpegCore
import FoundationEssentials
import Glibc

/// The overlays, drawn in order onto pictures of the capture's size with libavfilter (drawtext with
/// fontconfig and FreeType; movie + overlay for pictures). Texts go to drawtext through files and pictures
/// through links in a private folder, so that no user text or path is escaped into the filter graph's
/// syntax; the folder is removed with the effects. The reader thread that draws owns them.
final class PictureEffects {
    private let chain: PictureFilter
    private let folder: String
    let width: Int
    let height: Int
    /// Pictures of another size are scaled to the capture's first.
    private let scaler: Scaler
    private let scaled = Frame()

    init(_ overlays: [Overlay], width: Int, height: Int, colour: ColourDescription) throws {
        // The system's temporary folder (TMPDIR when set).
        let temporary = FileManager.default.temporaryDirectory.path
        var template = Array("\(temporary)/reel-overlays-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ReelError.runtime("cannot make a folder for the overlays in \(temporary): \(String(cString: strerror(errno))); set TMPDIR to a writable folder")
        }
        folder = String(cString: made)
        self.width = width
        self.height = height
        scaler = Scaler(outputWidth: width, outputHeight: height, outputColour: colour)
        var description = "null"
        do {
            for (index, overlay) in overlays.enumerated() {
                let (x, y) = overlay.placement(pictureHeight: height)
                switch overlay.content {
                case .text:
                    let file = "\(folder)/text-\(index).txt"
                    try Data((overlay.expandedText ?? "").utf8).write(to: URL(fileURLWithPath: file))
                    let size = max(8, Int((Double(height) * overlay.size).rounded()))
                    let place = { (expression: String) in
                        expression.replacing("W", with: "main_w").replacing("H", with: "main_h")
                            .replacing("w", with: "tw").replacing("h", with: "th")
                            .replacing("main_tw", with: "w").replacing("main_th", with: "h")
                    }
                    description += ",drawtext=textfile=\(file):font=\(overlay.font):fontsize=\(size):fontcolor=\(overlay.colour.hex)"
                        + (overlay.box ? ":box=1:boxcolor=black@0.5:boxborderw=\(max(2, size / 5))" : "")
                        + ":x=\(place(x)):y=\(place(y))"
                case .image(let path):
                    let link = "\(folder)/image-\(index).png"
                    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
                    guard symlink(absolute, link) == 0 else {
                        throw ReelError.runtime("cannot link \(ErrorText.path(path)) for its overlay: \(String(cString: strerror(errno)))")
                    }
                    let imageWidth = max(2, Int((Double(width) * overlay.size).rounded()) & ~1)
                    description += "[base\(index)];movie=\(link),scale=\(imageWidth):-2,format=rgba[image\(index)];"
                        + "[base\(index)][image\(index)]overlay=x=\(x):y=\(y):format=auto:eof_action=repeat"
                }
            }
            description += ",format=yuv420p"
            chain = try PictureFilter(description, timeBase: Rational(1, 1_000_000))
        } catch {
            PictureEffects.remove(folder)
            throw error
        }
    }

    deinit { PictureEffects.remove(folder) }

    /// Throws, saying what is missing, when this FFmpeg's libavfilter lacks a filter the filters or overlays need.
    static func checkAvailable(filters: [PictureFilterKind], overlays: [Overlay]) throws {
        if let missing = filters.first(where: { !PictureFilter.hasFilters([$0.filterName]) }) {
            throw ReelError.invalidInput("--filter \(missing.rawValue) needs libavfilter's \(missing.filterName), which this FFmpeg lacks")
        }
        if !overlays.isEmpty && !PictureFilter.hasFilters(["drawtext", "movie", "overlay", "scale", "format"]) {
            throw ReelError.invalidInput("overlays need libavfilter's drawtext (FreeType, fontconfig), movie and overlay, which this FFmpeg lacks")
        }
    }

    /// Draws the overlays once on a black picture, so that a picture that cannot be read or a font that is
    /// refused is reported before the recording starts.
    static func check(_ overlays: [Overlay], width: Int, height: Int, colour: ColourDescription) throws {
        let effects = try PictureEffects(overlays, width: width, height: height, colour: colour)
        let black = Frame()
        try black.allocateVideo(width: width, height: height, pixelFormat: .yuv420p)
        black.fill(x: 0, y: 0, width: width, height: height, luma: 16, cb: 128, cr: 128)
        do {
            _ = try effects.draw(on: black, at: 0)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("the overlays cannot be drawn (\(error.message), in \(error.call)): check the image files and font names")
        }
    }

    private static func remove(_ folder: String) {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for entry in entries { unlink("\(folder)/\(entry)") }
        }
        rmdir(folder)
    }

    /// `picture` at the capture's size with the overlays drawn, `time` µs after the recording's first picture
    /// (its timecode); the result is the effects' own until the next call.
    func draw(on picture: Frame, at time: Int64) throws -> Frame {
        let source: Frame
        if scaler.isPassThrough(for: picture) {
            try scaled.reference(picture)
        } else {
            if !scaled.hasBuffers || scaled.width != width || scaled.height != height || !scaled.isWritable {
                try scaled.allocateVideo(width: width, height: height, pixelFormat: .yuv420p)
            }
            try scaler.scale(picture, into: scaled)
        }
        source = scaled
        source.pts = time
        guard let drawn = try chain.filter(source) else {
            throw ReelError.runtime("the overlays held a picture back")
        }
        drawn.colour = scaler.outputColour
        return drawn
    }
}

extension LayoutColour {
    /// `0xRRGGBB`, as libavfilter's colours take it.
    var hex: String {
        let value = Int(red) << 16 | Int(green) << 8 | Int(blue)
        let text = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 6 - text.count) + text
    }
}
