/// Big-endian integers in byte arrays, the byte order of every QuickTime field.
///
/// Readers take an offset the caller has checked against the array's length (they trap past its end, as
/// array subscripts do); writers append, or overwrite bytes already there.
public enum BigEndian {
    public static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    public static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    public static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        UInt64(uint32(bytes, at: offset)) << 32 | UInt64(uint32(bytes, at: offset + 4))
    }

    public static func append(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    public static func append(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    public static func append(_ value: UInt64, to out: inout [UInt8]) {
        append(UInt32(truncatingIfNeeded: value >> 32), to: &out)
        append(UInt32(truncatingIfNeeded: value), to: &out)
    }

    /// Overwrites the four bytes at `offset`.
    public static func set(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    /// Overwrites the eight bytes at `offset`.
    public static func set(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        set(UInt32(truncatingIfNeeded: value >> 32), at: offset, in: &bytes)
        set(UInt32(truncatingIfNeeded: value), at: offset + 4, in: &bytes)
    }
}
