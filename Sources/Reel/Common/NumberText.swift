/// Numbers as people write them in options and ranges: whole numbers without a decimal point
/// (10000000, not 1e+07), others as Swift prints them (0.001).
package enum NumberText {
    package static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 9e15 ? String(Int64(value)) : String(value)
    }

    /// A number written in decimal (`12`, `0.5`, `-3`, `1e3`), finite; nil for anything else, such as the
    /// hexadecimal `0x10`, `inf` or `nan`, which Swift's `Double(_:)` reads (as 16, infinity, NaN).
    /// `value` (≥ 0) with exactly `decimals` digits after the point, rounded ("6.006006", "29.970"): for
    /// playlists, where the text must not depend on the locale or on Double's shortest form.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    package static func decimal(_ text: String) -> Double? {
        var rest = Substring(text)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0 != "e" && $0 != "E" }
        let exponent = rest.dropFirst(mantissa.count)
        let isDigit = { (character: Character) in character.isASCII && character.isNumber }
        guard mantissa.contains(where: isDigit), mantissa.allSatisfy({ isDigit($0) || $0 == "." }),
              mantissa.filter({ $0 == "." }).count <= 1 else { return nil }
        if !exponent.isEmpty {
            var digits = exponent.dropFirst()
            if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
