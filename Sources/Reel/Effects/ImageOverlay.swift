import FFmpegCore

/// An image overlay drawn by Reel: the PNG is read, scaled to its width and converted once (libavfilter's
/// movie and scale, to yuva420p in the picture's own matrix and range), then blended into every picture
/// (`Frame.blend`), touching only the pixels it covers.
final class ImageOverlay {
    private let image = Frame()
    /// The image's top left corner in the picture (even).
    let x: Int
    let y: Int

    /// `link`: the image's path as the effects' private folder names it (nothing to escape).
    init(link: String, overlay: Overlay, pictureWidth: Int, pictureHeight: Int, colour: ColourDescription) throws {
        let imageWidth = max(2, Int((Double(pictureWidth) * overlay.size).rounded()) & ~1)
        let matrix = colour.matrix.convertsLike(.bt709) ? "bt709" : colour.matrix.convertsLike(.bt2020nc) ? "bt2020" : "bt601"
        let source = try FilterGraphSource(description: "movie=\(link),scale=\(imageWidth):-2:out_color_matrix=\(matrix):"
                                                        + "out_range=\(colour.range == .full ? "pc" : "tv"),format=yuva420p")
        // A source graph gives its picture or its end; "try again" is bounded all the same (no hang at start).
        var read = FilterGraphSource.ReadResult.tryAgain
        for _ in 0..<1000 where read == .tryAgain { read = try source.read(into: image) }
        guard read == .frame else {
            throw ReelError.runtime(read == .endOfFile ? "the overlay image \(link) holds no picture"
                                                       : "the overlay image \(link) gave no picture after 1000 reads: check that it is a still image")
        }
        let margin = max(2, Int(Double(pictureHeight) * 0.03))
        var left: Int, top: Int
        switch overlay.position {
        case .fraction(let fx, let fy):
            (left, top) = (Int((Double(pictureWidth) * fx).rounded()), Int((Double(pictureHeight) * fy).rounded()))
        case .named(let name):
            left = name.hasSuffix("left") ? margin : name.hasSuffix("right") ? pictureWidth - image.width - margin : (pictureWidth - image.width) / 2
            top = name.hasPrefix("top") ? margin : name.hasPrefix("bottom") ? pictureHeight - image.height - margin : (pictureHeight - image.height) / 2
        }
        (x, y) = (left & ~1, top & ~1)
    }

    func draw(on picture: Frame) { picture.blend(image, atX: x, y: y) }
}
