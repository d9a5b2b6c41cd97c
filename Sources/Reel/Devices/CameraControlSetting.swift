import CLinuxCapture
import Glibc

/// A control value to give a camera before its first frame (`--camera-control NAME=VALUE`): the name as
/// `reel devices` lists it, the value a number, `true`/`false` for a boolean, or a menu entry's value or label;
/// or one of the AVFoundation-like names of CameraConvenience (focus, exposure, white_balance, torch, zoom).
public struct CameraControlSetting: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// "NAME=VALUE"; nil when there is no `=` or either side is empty.
    public init?(parsing text: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
            return nil
        }
        self.init(name: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
    }

    /// The number to set for `control`, or the reason the value does not fit it (naming what would).
    func resolvedValue(for control: CameraControl) throws -> Int64 {
        func refuse(_ allowed: String) -> ReelError {
            ReelError.invalidInput("camera control \(name)=\(value) is not allowed: \(allowed)")
        }
        switch control.kind {
        case .boolean:
            switch value.lowercased() {
            case "1", "true", "on", "yes": return 1
            case "0", "false", "off", "no": return 0
            default: throw refuse("use true or false (1 or 0)")
            }
        case .menu, .integerMenu:
            let entries = control.menu ?? []
            let listing = entries.map { "\($0.value) (\($0.name))" }.joined(separator: ", ")
            if let number = Int64(value), entries.contains(where: { $0.value == number }) { return number }
            if let entry = entries.first(where: { $0.name.lowercased() == value.lowercased() }) { return entry.value }
            throw refuse("use one of \(listing)")
        case .integer, .integer64:
            guard let number = Int64(value), number >= control.minimum, number <= control.maximum,
                  control.step <= 1 || (number - control.minimum) % Int64(control.step) == 0 else {
                throw refuse("use a whole number from \(control.minimum) to \(control.maximum)"
                             + (control.step > 1 ? " in steps of \(control.step)" : ""))
            }
            return number
        case .button, .other:
            throw refuse("\(name) is a \(control.kind.rawValue) control, which Reel does not set")
        }
    }

    /// A control's value before Reel changed it, to give back (`--restore-controls`).
    struct PreviousValue: Sendable {
        var id: UInt32
        var value: Int64
        var is64Bit: Bool
    }

    /// Gives each setting, in order, to the camera at `path` (`spec` names it in errors). Every problem is a
    /// usage error naming what the camera offers. Returns the values the changed controls had before, in the
    /// order to give them back (the reverse of setting: the lens position before autofocus).
    @discardableResult
    static func apply(_ settings: [CameraControlSetting], to path: String, spec: DeviceSpec) throws -> [PreviousValue] {
        guard !settings.isEmpty else { return [] }
        var previous: [PreviousValue] = []
        var controls = CameraControl.controls(of: path)
        var expanded: [CameraControlSetting] = []
        for setting in settings {
            expanded += CameraConvenience.names.contains(setting.name)
                ? try CameraConvenience.expand(setting, controls: controls, spec: spec) : [setting]
        }
        for setting in expanded {
            guard let control = controls.first(where: { $0.name == setting.name }) else {
                let names = controls.map(\.name).joined(separator: ", ")
                throw ReelError.invalidInput("\(spec) has no control '\(setting.name)': it offers \(names.isEmpty ? "none" : names)")
            }
            let number = try setting.resolvedValue(for: control)
            if let old = control.value, !previous.contains(where: { $0.id == control.id }) {
                previous.append(PreviousValue(id: control.id, value: old, is64Bit: control.kind == .integer64))
            }
            let result = reel_v4l2_set_control(path, control.id, number, control.kind == .integer64 ? 1 : 0)
            if result == -EACCES && control.inactive {
                throw ReelError.invalidInput(
                    "camera control \(setting.name) is inactive now (an automatic mode is on): turn the automatic mode off first, e.g. focus_automatic_continuous=0 before focus_absolute, auto_exposure=1 before exposure_time_absolute")
            }
            guard result == 0 else {
                throw ReelError.invalidInput("\(spec) refused \(setting.name)=\(setting.value): \(String(cString: strerror(-result)))")
            }
            // Setting one control can activate another (autofocus off makes the lens position settable).
            controls = CameraControl.controls(of: path)
        }
        return previous.reversed()
    }

    /// Gives the camera back the values it had (best effort: a camera that is gone keeps nothing anyway).
    static func restore(_ values: [PreviousValue], to path: String) {
        for value in values { _ = reel_v4l2_set_control(path, value.id, value.value, value.is64Bit ? 1 : 0) }
    }
}
