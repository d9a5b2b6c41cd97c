import FFmpegCore
import FoundationEssentials
import Glibc

/// The overlays, drawn in order onto pictures of the capture's size: texts by libavfilter's drawtext (fontconfig
/// and FreeType; consecutive texts share one graph), images by Reel itself (`ImageOverlay`: read and converted
/// once, then blended over the pixels they cover; libavfilter's movie + overlay cost 6 ms a 720p picture for a
/// 256x128 logo, the blend 0.3-0.6). Texts go to drawtext through files and images through links in a private
/// folder, so that no user text or path is escaped into a filter graph's syntax; the folder is removed with
/// the effects. The reader thread that draws owns them.
final class PictureEffects {
    /// One step of the drawing, in the overlays' order: a run of texts or an image. (Two optionals rather than
    /// an enum of two class payloads, whose tag bits in the pointer hide the object from leak checkers.)
    private struct Step {
        var texts: PictureFilter?
        var image: ImageOverlay?
    }

    private let steps: [Step]
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
        var steps: [Step] = []
        var texts: [String] = []
        do {
            for (index, overlay) in overlays.enumerated() {
                switch overlay.content {
                case .text:
                    let (x, y) = overlay.placement(pictureHeight: height)
                    let file = "\(folder)/text-\(index).txt"
                    try Data((overlay.expandedText ?? "").utf8).write(to: URL(fileURLWithPath: file))
                    let size = max(8, Int((Double(height) * overlay.size).rounded()))
                    let place = { (expression: String) in
                        expression.replacing("W", with: "main_w").replacing("H", with: "main_h")
                            .replacing("w", with: "tw").replacing("h", with: "th")
                            .replacing("main_tw", with: "w").replacing("main_th", with: "h")
                    }
                    texts.append("drawtext=textfile=\(file):font=\(overlay.font):fontsize=\(size):fontcolor=\(overlay.colour.hex)"
                        + (overlay.box ? ":box=1:boxcolor=black@0.5:boxborderw=\(max(2, size / 5))" : "")
                        + ":x=\(place(x)):y=\(place(y))")
                case .image(let path):
                    try PictureEffects.endTexts(&texts, into: &steps)
                    let link = "\(folder)/image-\(index).png"
                    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
                    guard symlink(absolute, link) == 0 else {
                        throw ReelError.runtime("cannot link \(ErrorText.path(path)) for its overlay: \(String(cString: strerror(errno)))")
                    }
                    steps.append(Step(image: try ImageOverlay(link: link, overlay: overlay, pictureWidth: width, pictureHeight: height,
                                                              colour: scaler.outputColour)))
                }
            }
            try PictureEffects.endTexts(&texts, into: &steps)
        } catch {
            PictureEffects.remove(folder)
            throw error
        }
        self.steps = steps
    }

    deinit { PictureEffects.remove(folder) }

    /// The texts gathered so far as one drawtext graph, the next step.
    private static func endTexts(_ texts: inout [String], into steps: inout [Step]) throws {
        guard !texts.isEmpty else { return }
        steps.append(Step(texts: try PictureFilter(texts.joined(separator: ",") + ",format=yuv420p", timeBase: Rational(1, 1_000_000))))
        texts = []
    }

    /// Throws, saying what is missing, when this FFmpeg's libavfilter lacks a filter the filters or overlays need.
    static func checkAvailable(filters: [PictureFilterKind], overlays: [Overlay]) throws {
        if let missing = filters.first(where: { !PictureFilter.hasFilters([$0.filterName]) }) {
            throw ReelError.invalidInput("--filter \(missing.rawValue) needs libavfilter's \(missing.filterName), which this FFmpeg lacks")
        }
        if !overlays.isEmpty && !PictureFilter.hasFilters(["drawtext", "movie", "scale", "format"]) {
            throw ReelError.invalidInput("overlays need libavfilter's drawtext (FreeType, fontconfig), movie and scale, which this FFmpeg lacks")
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
        var drawn = scaled
        if scaler.isPassThrough(for: picture) {
            try scaled.reference(picture)
        } else {
            if !scaled.hasBuffers || scaled.width != width || scaled.height != height || !scaled.isWritable {
                try scaled.allocateVideo(width: width, height: height, pixelFormat: .yuv420p)
            }
            try scaler.scale(picture, into: scaled)
        }
        scaled.pts = time
        for step in steps {
            if let chain = step.texts {
                guard let filtered = try chain.filter(drawn) else { throw ReelError.runtime("the overlays held a picture back") }
                drawn = filtered
            }
            if let image = step.image {
                // Drawn into a picture no one else shares (a copy of the captured one, the first time).
                try drawn.makeWritable()
                image.draw(on: drawn)
            }
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
