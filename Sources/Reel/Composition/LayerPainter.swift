import FFmpegCore

/// Draws one input into the composed picture: its picture cropped and scaled once into its rectangle (only
/// when a new picture came or the layout or the input's size changed; otherwise the scaled copy is drawn
/// again), then its border. The composer's thread owns it.
final class LayerPainter {
    /// The composer's own reference to the picture it draws (the layer reads into other frames).
    private let source = Frame()
    private let scaled = Frame()
    private var scaler: Scaler?
    private(set) var geometry: LayerGeometry?
    private var paintedGeneration = -1
    private var paintedPlacement: VideoLayout.Placement?
    private let canvasColour: ColourDescription

    init(canvasColour: ColourDescription) {
        self.canvasColour = canvasColour
    }

    /// True when the next `paint` would scale a new picture (or scale again for a new placement).
    func needsPicture(generation: Int, placement: VideoLayout.Placement) -> Bool {
        generation != paintedGeneration || placement != paintedPlacement
    }

    /// Takes a reference to the picture to draw (under the composition's lock; cheap).
    func take(_ picture: Frame, generation: Int) throws {
        try source.reference(picture)
        paintedGeneration = generation
        paintedPlacement = nil
    }

    /// Draws the layer at `placement` into `canvas`: scaling the taken picture first when it is new. False
    /// when there is nothing to draw yet (no picture, or the placement leaves it no pixels).
    @discardableResult
    func paint(into canvas: Frame, placement: VideoLayout.Placement) throws -> Bool {
        if paintedPlacement != placement {
            guard source.hasBuffers else { return false }
            geometry = LayerGeometry(placement, canvasWidth: canvas.width, canvasHeight: canvas.height,
                                     sourceWidth: source.width, sourceHeight: source.height, sampleAspect: source.sampleAspectRatio)
            guard let geometry else { return false }
            let picture = Frame()
            try picture.reference(source)
            try picture.crop(x: geometry.crop.x, y: geometry.crop.y, width: geometry.crop.width, height: geometry.crop.height)
            // An input coded with another YUV matrix (a BT.601 camera in a BT.709 picture) is re-coded by the
            // Scaler at the rectangle's size (YUVMatrixConversion), not through RGB.
            if scaler?.outputWidth != geometry.picture.width || scaler?.outputHeight != geometry.picture.height {
                scaler = Scaler(outputWidth: geometry.picture.width, outputHeight: geometry.picture.height, outputColour: canvasColour)
            }
            if scaler!.isPassThrough(for: picture) {
                // Already the rectangle's size, format and colour (a screen filling the picture): drawn as it is.
                try scaled.reference(picture)
            } else {
                if !scaled.hasBuffers || scaled.width != geometry.picture.width || scaled.height != geometry.picture.height || !scaled.isWritable {
                    try scaled.allocateVideo(width: geometry.picture.width, height: geometry.picture.height, pixelFormat: .yuv420p)
                }
                try scaler!.scale(picture, into: scaled)
            }
            paintedPlacement = placement
        }
        guard let geometry else { return false }
        canvas.draw(scaled, atX: geometry.picture.x, y: geometry.picture.y)
        if let border = placement.border { LayerPainter.drawBorder(border, around: geometry.picture, on: canvas, hd: canvasColour.matrix == .bt709) }
        return true
    }

    /// The placeholder of an input that is lost or has not started: its rectangle filled grey.
    static func paintPlaceholder(into canvas: Frame, placement: VideoLayout.Placement, hd: Bool) {
        guard let bounds = LayerGeometry.pixels(placement.rect, width: canvas.width, height: canvas.height), placement.isShown else { return }
        let colour = LayoutColour.placeholder.lumaChroma(hd: hd)
        canvas.fill(x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, luma: colour.y, cb: colour.cb, cr: colour.cr)
        if let border = placement.border { drawBorder(border, around: bounds, on: canvas, hd: hd) }
    }

    /// A border inside the rectangle (rounded up to whole chroma samples).
    static func drawBorder(_ border: VideoLayout.Border, around rect: PixelRect, on canvas: Frame, hd: Bool) {
        let width = min((border.width + 1) & ~1, rect.width / 2 & ~1, rect.height / 2 & ~1)
        guard width > 0 else { return }
        let colour = border.colour.lumaChroma(hd: hd)
        for strip in [PixelRect(x: rect.x, y: rect.y, width: rect.width, height: width),
                      PixelRect(x: rect.x, y: rect.y + rect.height - width, width: rect.width, height: width),
                      PixelRect(x: rect.x, y: rect.y, width: width, height: rect.height),
                      PixelRect(x: rect.x + rect.width - width, y: rect.y, width: width, height: rect.height)] {
            canvas.fill(x: strip.x, y: strip.y, width: strip.width, height: strip.height, luma: colour.y, cb: colour.cb, cr: colour.cr)
        }
    }
}
