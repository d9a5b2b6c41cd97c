import FoundationEssentials
import Glibc

/// Parses sizes and bit rates the way FFmpeg does: a plain number, or with K/M/G/T (powers of 1000) or
/// Ki/Mi/Gi/Ti (powers of 1024); a trailing "B" is allowed ("10MiB"). Prefixes are case-insensitive.
@_spi(ReelTools) public enum ByteCount {
    public static func parse(_ text: String) -> Int64? {
        var body = Substring(text.trimmingWhitespace)
        if body.hasSuffix("B") { body = body.dropLast() }
        var multiplier: Double = 1
        if let last = body.last, last == "i" || last == "I",
           let power = body.dropLast().last.flatMap(powerIndex) {
            multiplier = pow(1024, Double(power))
            body = body.dropLast(2)
        } else if let power = body.last.flatMap(powerIndex) {
            multiplier = pow(1000, Double(power))
            body = body.dropLast()
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let number = Double(body), number.isFinite else { return nil }
        let value = (number * multiplier).rounded()
        guard value < 9.0e18 else { return nil }
        return Int64(value)
    }

    private static func powerIndex(_ character: Character) -> Int? {
        switch character {
        case "k", "K": return 1
        case "m", "M": return 2
        case "g", "G": return 3
        case "t", "T": return 4
        default: return nil
        }
    }

    /// "12.3 MB" style text for status lines (powers of 1000, like the K/M/G input suffixes).
    public static func format(_ bytes: Int64) -> String {
        let value = Double(bytes)
        switch value {
        case ..<1000: return "\(bytes) B"
        case ..<1_000_000: return String(printf: "%.1f kB", value / 1000)
        case ..<1_000_000_000: return String(printf: "%.1f MB", value / 1_000_000)
        default: return String(printf: "%.2f GB", value / 1_000_000_000)
        }
    }
}
