/// AVFoundation-like camera settings (AVCaptureDevice's focusMode, exposureMode, whiteBalanceMode, torchMode,
/// videoZoomFactor), turned into the V4L2 controls a UVC camera has. Given as `--camera-control NAME=VALUE`
/// with these names beside the V4L2 ones:
///
/// | name | values | V4L2 controls |
/// |---|---|---|
/// | `focus` | `auto`, `locked`, `manual:P` (lens position 0…1, near to far) | focus_automatic_continuous, focus_absolute |
/// | `exposure` | `auto`, `manual:SECONDS` | auto_exposure (3 aperture priority, 1 manual), exposure_time_absolute (100 µs units) |
/// | `white_balance` | `auto`, `locked`, `KELVIN` | white_balance_automatic, white_balance_temperature |
/// | `torch` | `on`, `off`, `LEVEL` (0…1) | torch_intensity (or led1_mode) |
/// | `zoom` | `FACTOR` (1 = widest) | zoom_absolute (its minimum × factor) |
enum CameraConvenience {
    static let names: Set<String> = ["focus", "exposure", "white_balance", "torch", "zoom"]

    /// The V4L2 settings for a convenience setting on a camera with `controls`; a usage error naming what the
    /// camera offers when it lacks the controls or the value is not understood.
    static func expand(_ setting: CameraControlSetting, controls: [CameraControl], spec: DeviceSpec) throws -> [CameraControlSetting] {
        let value = setting.value.lowercased()
        func control(_ name: String) throws -> CameraControl {
            guard let found = controls.first(where: { $0.name == name }) else {
                throw ReelError.invalidInput("\(spec) has no \(name) control, which \(setting.name) needs: it offers \(controls.map(\.name).joined(separator: ", "))")
            }
            return found
        }
        func refuse(_ allowed: String) -> ReelError {
            ReelError.invalidInput("camera control \(setting.name)=\(setting.value) is not allowed: use \(allowed)")
        }
        func fraction(of text: Substring) throws -> Double {
            guard let number = Double(text), number >= 0, number <= 1 else { throw refuse("a number from 0 to 1 after the colon") }
            return number
        }
        func set(_ name: String, _ number: Int64) -> CameraControlSetting { CameraControlSetting(name: name, value: String(number)) }
        /// A point between a control's minimum and maximum, on its step.
        func position(_ control: CameraControl, _ fraction: Double) -> Int64 {
            let step = Int64(max(1, control.step))
            let raw = Double(control.minimum) + fraction * Double(control.maximum - control.minimum)
            return control.minimum + Int64(((raw - Double(control.minimum)) / Double(step)).rounded()) * step
        }
        switch setting.name {
        case "focus":
            let automatic = try control("focus_automatic_continuous")
            if value == "auto" { return [set(automatic.name, 1)] }
            if value == "locked" { return [set(automatic.name, 0)] }
            guard value.hasPrefix("manual:") else { throw refuse("auto, locked or manual:POSITION (0 near to 1 far)") }
            let lens = try control("focus_absolute")
            // UVC lenses count from far (small) to near (large): AVFoundation's lens position runs near 0 → far 1.
            return [set(automatic.name, 0), set(lens.name, position(lens, 1 - (try fraction(of: value.dropFirst(7)))))]
        case "exposure":
            let mode = try control("auto_exposure")
            if value == "auto" { return [set(mode.name, 3)] }
            guard value.hasPrefix("manual:"), let seconds = Double(value.dropFirst(7)), seconds > 0 else {
                throw refuse("auto or manual:SECONDS (e.g. manual:0.01)")
            }
            let time = try control("exposure_time_absolute")
            let units = Int64((seconds * 10_000).rounded())
            guard units >= time.minimum && units <= time.maximum else {
                throw refuse("an exposure from \(Double(time.minimum) / 10_000) to \(Double(time.maximum) / 10_000) s")
            }
            return [set(mode.name, 1), set(time.name, units)]
        case "white_balance":
            let automatic = try control("white_balance_automatic")
            if value == "auto" { return [set(automatic.name, 1)] }
            if value == "locked" { return [set(automatic.name, 0)] }
            guard let kelvin = Int64(value) else { throw refuse("auto, locked or a temperature in kelvin") }
            return [set(automatic.name, 0), CameraControlSetting(name: try control("white_balance_temperature").name, value: String(kelvin))]
        case "torch":
            let torch = try controls.first(where: { $0.name == "torch_intensity" }).map { $0 } ?? control("led1_mode")
            if value == "off" { return [set(torch.name, torch.kind == .menu ? 0 : torch.minimum)] }
            if value == "on" { return [set(torch.name, torch.kind == .menu ? 1 : torch.maximum)] }
            guard torch.kind != .menu else { throw refuse("on or off") }
            return [set(torch.name, position(torch, try fraction(of: Substring(value))))]
        case "zoom":
            let zoom = try control("zoom_absolute")
            guard let factor = Double(value), factor >= 1 else { throw refuse("a zoom factor of 1 (widest) or more") }
            let target = Int64((Double(max(1, zoom.minimum)) * factor).rounded())
            guard target <= zoom.maximum else {
                throw refuse("a factor up to \(Double(zoom.maximum) / Double(max(1, zoom.minimum)))")
            }
            return [set(zoom.name, target)]
        default:
            return [setting]
        }
    }
}
