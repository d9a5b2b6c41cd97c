import CLinuxCapture

/// One control a V4L2 camera offers (brightness, focus_automatic_continuous, auto_exposure, ...), as
/// VIDIOC_QUERY_EXT_CTRL describes it, with its current value. `name` is v4l2-ctl's: the driver's label in
/// lower case with words joined by underscores ("White Balance, Automatic" → white_balance_automatic).
public struct CameraControl: Sendable, Encodable, Equatable {
    public enum Kind: String, Sendable, Encodable {
        case integer, boolean, menu, button, integer64, integerMenu, other
    }

    public var name: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    /// Nil for write-only controls and buttons.
    public var value: Int64?
    /// A menu control's entries: the value to set and its label.
    public struct MenuEntry: Sendable, Encodable, Equatable {
        public var value: Int64
        public var name: String
    }

    /// Menu entries (menu and integer-menu controls), in value order.
    public var menu: [MenuEntry]?
    /// Inactive: it has no effect now (focus_absolute while autofocus is on).
    public var inactive: Bool
    public var readOnly: Bool
    /// The V4L2 control ID.
    public var id: UInt32

    /// v4l2-ctl's name for a driver label.
    public static func name(forLabel label: String) -> String {
        var result = ""
        var pendingSeparator = false
        for character in label.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                if pendingSeparator && !result.isEmpty { result.append("_") }
                pendingSeparator = false
                result.append(character)
            } else {
                pendingSeparator = true
            }
        }
        return result
    }

    /// The controls of the camera at `path` (none when it cannot be asked).
    static func controls(of path: String) -> [CameraControl] {
        var buffer = [reel_v4l2_control](repeating: reel_v4l2_control(), count: 128)
        let count = reel_v4l2_list_controls(path, &buffer, Int32(buffer.count))
        guard count > 0 else { return [] }
        return buffer.prefix(Int(min(count, Int32(buffer.count)))).map { raw in
            let label = withUnsafeBytes(of: raw.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let kind: Kind
            switch raw.type {
            case 1: kind = .integer
            case 2: kind = .boolean
            case 3: kind = .menu
            case 4: kind = .button
            case 5: kind = .integer64
            case 9: kind = .integerMenu
            default: kind = .other
            }
            var menu: [MenuEntry]? = nil
            if kind == .menu || kind == .integerMenu, raw.maximum - raw.minimum < 256 {
                var entries: [MenuEntry] = []
                for index in raw.minimum ... raw.maximum {
                    var text = [CChar](repeating: 0, count: 64)
                    if reel_v4l2_menu_entry(path, raw.id, UInt32(truncatingIfNeeded: index), kind == .integerMenu ? 1 : 0,
                                            &text, text.count) == 1 {
                        entries.append(MenuEntry(value: index,
                                                 name: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
                    }
                }
                menu = entries
            }
            return CameraControl(name: name(forLabel: label), kind: kind, minimum: raw.minimum, maximum: raw.maximum,
                                 step: raw.step, defaultValue: raw.default_value, value: raw.has_value != 0 ? raw.value : nil,
                                 menu: menu, inactive: raw.flags & 0x10 != 0, readOnly: raw.flags & 0x04 != 0, id: raw.id)
        }
    }
}
