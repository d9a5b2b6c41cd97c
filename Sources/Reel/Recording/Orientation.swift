/// How the picture should be shown, as AVCaptureConnection.videoOrientation: written into the movie as a
/// rotation (the track matrix); the pixels themselves are stored as captured.
public enum Orientation: String, Sendable, CaseIterable, Codable {
    case landscapeRight = "landscape-right"
    case portrait
    case portraitUpsideDown = "portrait-upside-down"
    case landscapeLeft = "landscape-left"

    /// Clockwise rotation a player applies to the stored picture.
    public var clockwiseRotation: Int {
        switch self {
        case .landscapeRight: return 0
        case .portrait: return 90
        case .landscapeLeft: return 180
        case .portraitUpsideDown: return 270
        }
    }
}
