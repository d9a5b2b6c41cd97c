import FFmpegCore

/// A rectangle in pixels.
struct PixelRect: Equatable, CustomStringConvertible {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Where one input's pictures go in the composed picture, in pixels: the part of the input shown (`crop`)
/// and the rectangle it is scaled into (`picture`), both on even coordinates (whole 4:2:0 chroma samples).
/// Made from a placement, the composed picture's size and the input's picture size; made again when either
/// changes (a layout switch, a camera that changes mode).
struct LayerGeometry: Equatable {
    var crop: PixelRect
    var picture: PixelRect

    /// Nil when the placement hides the input or leaves it less than 2x2 pixels.
    init?(_ placement: VideoLayout.Placement, canvasWidth: Int, canvasHeight: Int,
          sourceWidth: Int, sourceHeight: Int, sampleAspect: Rational) {
        guard placement.isShown, sourceWidth >= 2, sourceHeight >= 2,
              let bounds = LayerGeometry.pixels(placement.rect, width: canvasWidth, height: canvasHeight),
              var crop = LayerGeometry.pixels(placement.crop ?? .whole, width: sourceWidth, height: sourceHeight) else { return nil }
        let pixelAspect = sampleAspect.isValid && sampleAspect.numerator > 0 ? sampleAspect.doubleValue : 1
        switch placement.scaling {
        case .fit:
            let fitted = Scaler.fittedRect(sourceWidth: crop.width, sourceHeight: crop.height, sampleAspect: sampleAspect,
                                           outputWidth: bounds.width, outputHeight: bounds.height)
            picture = PixelRect(x: bounds.x + fitted.x, y: bounds.y + fitted.y, width: fitted.width, height: fitted.height)
        case .fill:
            // The shown part cut (centred) to the rectangle's shape, so that scaling it covers the rectangle.
            let boundsAspect = Double(bounds.width) / Double(bounds.height)
            let cropAspect = Double(crop.width) * pixelAspect / Double(crop.height)
            if cropAspect > boundsAspect * 1.01 {
                let width = max(2, Int((Double(crop.height) * boundsAspect / pixelAspect).rounded()) & ~1)
                crop = PixelRect(x: (crop.x + (crop.width - width) / 2) & ~1, y: crop.y, width: width, height: crop.height)
            } else if cropAspect < boundsAspect / 1.01 {
                let height = max(2, Int((Double(crop.width) * pixelAspect / boundsAspect).rounded()) & ~1)
                crop = PixelRect(x: crop.x, y: (crop.y + (crop.height - height) / 2) & ~1, width: crop.width, height: height)
            }
            picture = bounds
        }
        self.crop = crop
    }

    /// A region of a picture in whole even pixels; nil when less than 2x2 remain.
    static func pixels(_ region: VideoLayout.Region, width: Int, height: Int) -> PixelRect? {
        func even(_ value: Double) -> Int { Int(value.rounded()) & ~1 }
        let left = even(region.x * Double(width)), top = even(region.y * Double(height))
        let right = min(width & ~1, even((region.x + region.width) * Double(width)))
        let bottom = min(height & ~1, even((region.y + region.height) * Double(height)))
        guard right - left >= 2, bottom - top >= 2 else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
