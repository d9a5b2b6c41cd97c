/// A colour a layout draws (a border, the placeholder of a lost input): a name or `#RRGGBB`, turned into the
/// composed picture's Y'CbCr.
public struct LayoutColour: Sendable, Equatable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    static let names: [(String, LayoutColour)] = [
        ("white", LayoutColour(red: 255, green: 255, blue: 255)), ("black", LayoutColour(red: 0, green: 0, blue: 0)),
        ("gray", LayoutColour(red: 128, green: 128, blue: 128)), ("red", LayoutColour(red: 255, green: 0, blue: 0)),
        ("green", LayoutColour(red: 0, green: 255, blue: 0)), ("blue", LayoutColour(red: 0, green: 0, blue: 255)),
        ("yellow", LayoutColour(red: 255, green: 255, blue: 0)),
    ]

    /// The placeholder an input shows once it has delivered nothing for a while.
    static let placeholder = LayoutColour(red: 48, green: 48, blue: 48)

    /// `white`, `black`, `gray`, `red`, `green`, `blue`, `yellow` or `#RRGGBB`.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if let named = LayoutColour.names.first(where: { $0.0 == lowered || ($0.0 == "gray" && lowered == "grey") }) {
            self = named.1
            return
        }
        let digits = lowered.hasPrefix("#") ? lowered.dropFirst() : Substring(lowered)
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else {
            throw ReelError.invalidInput("colour '\(text)': use \(LayoutColour.names.map(\.0).joined(separator: ", ")) or #RRGGBB")
        }
        self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
    }

    public var description: String {
        if let named = LayoutColour.names.first(where: { $0.1 == self }) { return named.0 }
        let hex = (Int(red) << 16 | Int(green) << 8 | Int(blue))
        let text = String(hex, radix: 16)
        return "#" + String(repeating: "0", count: 6 - text.count) + text
    }

    /// Video-range (16-235) Y'CbCr under BT.709 (`hd`) or BT.601 weights, as 8-bit levels.
    func lumaChroma(hd: Bool) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (kr, kb) = hd ? (0.2126, 0.0722) : (0.299, 0.114)
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - luma) / (2 * (1 - kb)), cr = (r - luma) / (2 * (1 - kr))
        func level(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        return (level(16 + 219 * luma), level(128 + 224 * cb), level(128 + 224 * cr))
    }
}
