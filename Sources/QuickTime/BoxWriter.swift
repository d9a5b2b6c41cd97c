/// Writes boxes into a byte array: the body is appended in place and the size filled in afterwards, so
/// nested boxes cost no copies.
public enum BoxWriter {
    /// A box with a 32-bit size around what `body` appends.
    public static func box<Failure: Error>(_ type: FourCC, into out: inout [UInt8],
                                           _ body: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) {
        let start = out.count
        BigEndian.append(UInt32(0), to: &out)
        BigEndian.append(type.rawValue, to: &out)
        try body(&out)
        BigEndian.set(UInt32(out.count - start), at: start, in: &out)
    }

    /// A full box (ISO 14496-12 4.2: a version byte and 24 bits of flags after the header) around what
    /// `body` appends.
    public static func fullBox<Failure: Error>(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, into out: inout [UInt8],
                                               _ body: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) {
        try box(type, into: &out) { (content: inout [UInt8]) throws(Failure) in
            BigEndian.append(UInt32(version) << 24 | flags & 0xFF_FFFF, to: &content)
            try body(&content)
        }
    }
}
