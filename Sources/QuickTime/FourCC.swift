/// A four-character code: a box type (`moov`, `trak`), a sample entry (`avc1`, `hvc1`), a handler (`vide`).
///
/// Kept as the four bytes' big-endian value. Characters are Latin-1, one byte each, so QuickTime's user-data
/// codes that begin with © (0xA9, as in `©swr`) are written and read back unchanged.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The code of four Latin-1 characters (U+0000 to U+00FF); nil for any other text.
    public init?(validating text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 4, scalars.allSatisfy({ $0.value <= 0xFF }) else { return nil }
        rawValue = scalars.reduce(0) { $0 << 8 | $1.value }
    }

    /// A code written in the source (`"moov"`); text that is not four Latin-1 characters is a programming error.
    public init(stringLiteral text: String) {
        guard let code = FourCC(validating: text) else { preconditionFailure("'\(text)' is not a four-character code") }
        self = code
    }

    /// The code stored in the four bytes at `offset`.
    public init(_ bytes: [UInt8], at offset: Int) {
        rawValue = BigEndian.uint32(bytes, at: offset)
    }

    /// The four bytes, first character first.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    public var description: String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
