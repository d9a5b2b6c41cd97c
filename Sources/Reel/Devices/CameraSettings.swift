/// Typed camera settings, as AVCaptureDevice's focusMode, exposureMode, whiteBalanceMode, torchMode and
/// videoZoomFactor: `cameraControls: [.focus(.locked), .torch(.on), .exposure(.manual(seconds: 0.01))]`.
/// Each is the string form the command line takes (`--camera-control focus=locked`), so both go through
/// one parser (CameraConvenience) and mean exactly the same on a camera.
extension CameraControlSetting {
    public enum FocusMode: Sendable, Equatable {
        /// Continuous autofocus.
        case auto
        /// Autofocus off, the lens where it is.
        case locked
        /// Autofocus off, the lens at a position from 0 (nearest) to 1 (farthest), as AVFoundation's lensPosition.
        case manual(lensPosition: Double)
    }

    public enum ExposureMode: Sendable, Equatable {
        case auto
        /// A fixed exposure time.
        case manual(seconds: Double)
    }

    public enum WhiteBalanceMode: Sendable, Equatable {
        case auto
        /// Automatic white balance off, kept where it is.
        case locked
        /// A fixed colour temperature.
        case temperature(kelvin: Int)
    }

    public enum TorchMode: Sendable, Equatable {
        case off
        /// Full intensity.
        case on
        /// An intensity from 0 to 1 (cameras with a torch intensity control).
        case level(Double)
    }

    public static func focus(_ mode: FocusMode) -> CameraControlSetting {
        switch mode {
        case .auto: CameraControlSetting(name: "focus", value: "auto")
        case .locked: CameraControlSetting(name: "focus", value: "locked")
        case .manual(let position): CameraControlSetting(name: "focus", value: "manual:\(NumberText.plain(position))")
        }
    }

    public static func exposure(_ mode: ExposureMode) -> CameraControlSetting {
        switch mode {
        case .auto: CameraControlSetting(name: "exposure", value: "auto")
        case .manual(let seconds): CameraControlSetting(name: "exposure", value: "manual:\(NumberText.plain(seconds))")
        }
    }

    public static func whiteBalance(_ mode: WhiteBalanceMode) -> CameraControlSetting {
        switch mode {
        case .auto: CameraControlSetting(name: "white_balance", value: "auto")
        case .locked: CameraControlSetting(name: "white_balance", value: "locked")
        case .temperature(let kelvin): CameraControlSetting(name: "white_balance", value: String(kelvin))
        }
    }

    public static func torch(_ mode: TorchMode) -> CameraControlSetting {
        switch mode {
        case .off: CameraControlSetting(name: "torch", value: "off")
        case .on: CameraControlSetting(name: "torch", value: "on")
        case .level(let level): CameraControlSetting(name: "torch", value: NumberText.plain(level))
        }
    }

    /// A zoom factor: 1 is the widest, 2 twice as close (AVCaptureDevice's videoZoomFactor).
    public static func zoom(_ factor: Double) -> CameraControlSetting {
        CameraControlSetting(name: "zoom", value: NumberText.plain(factor))
    }
}
