/// The header every box starts with (ISO 14496-12, 4.2): a 32-bit size and a type; the size in 64 bits
/// after them when the 32-bit field is 1; for a `uuid` box, the 16-byte extended type. A 32-bit size of 0
/// means the box runs to the end of the file.
public struct BoxHeader: Equatable, Sendable {
    /// Why bytes are not a box header.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        /// The bytes end `needed` bytes into a header that starts at `offset`.
        case truncated(offset: Int, needed: Int)
        /// A size smaller than the header itself (or past what a file can hold).
        case invalidSize(type: FourCC, size: UInt64, offset: Int)

        public var description: String {
            switch self {
            case .truncated(let offset, let needed): "box header at \(offset) cut short (\(needed) bytes needed)"
            case .invalidSize(let type, let size, let offset): "'\(type)' box of \(size) bytes at \(offset)"
            }
        }
    }

    /// The box type (`uuid` for a box with an extended type).
    public var type: FourCC
    /// Bytes of the whole box, header included; nil when it runs to the end of the file (size field 0).
    public var size: Int64?
    /// The extended type of a `uuid` box (16 bytes); nil for every other box.
    public var userType: [UInt8]?
    /// Whether the size takes 64 bits (always when it does not fit 32; a writer may also ask for it, to grow
    /// the box later in place).
    public var hasLargeSize: Bool

    /// `largeSize`: write a 64-bit size even when the size fits 32 bits. `userType` is required for `uuid`
    /// boxes and refused for others.
    public init(type: FourCC, size: Int64?, userType: [UInt8]? = nil, largeSize: Bool = false) {
        precondition((type == "uuid") == (userType != nil) && (userType?.count ?? 16) == 16,
                     "a uuid box has a 16-byte extended type, and only a uuid box has one")
        self.type = type
        self.size = size
        self.userType = userType
        hasLargeSize = largeSize || (size ?? 0) > Int64(UInt32.max)
    }

    /// Bytes the header takes: 8, 16 with a 64-bit size, and 16 more for a uuid's extended type.
    public var encodedSize: Int { 8 + (hasLargeSize ? 8 : 0) + (userType == nil ? 0 : 16) }

    /// The header as it is written.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize)
        write(into: &bytes)
        return bytes
    }

    /// Appends the header as it is written.
    public func write(into out: inout [UInt8]) {
        switch (size, hasLargeSize) {
        case (nil, false): BigEndian.append(UInt32(0), to: &out)
        case (let size?, false): BigEndian.append(UInt32(size), to: &out)
        case (_, true): BigEndian.append(UInt32(1), to: &out)
        }
        BigEndian.append(type.rawValue, to: &out)
        if hasLargeSize { BigEndian.append(UInt64(size ?? 0), to: &out) }
        if let userType { out += userType }
    }

    /// The header at `offset` in `bytes`. A size of 0 is returned as nil (to the end of the file); a 64-bit
    /// size of 0 is read the same way.
    public static func parse(_ bytes: [UInt8], at offset: Int) throws(ParseError) -> BoxHeader {
        guard offset >= 0, offset + 8 <= bytes.count else { throw .truncated(offset: offset, needed: 8) }
        let small = BigEndian.uint32(bytes, at: offset)
        let type = FourCC(bytes, at: offset + 4)
        var size: UInt64? = small == 0 ? nil : UInt64(small)
        var headerSize = 8
        if small == 1 {
            guard offset + 16 <= bytes.count else { throw .truncated(offset: offset, needed: 16) }
            let large = BigEndian.uint64(bytes, at: offset + 8)
            size = large == 0 ? nil : large
            headerSize = 16
        }
        var userType: [UInt8]? = nil
        if type == "uuid" {
            guard offset + headerSize + 16 <= bytes.count else { throw .truncated(offset: offset, needed: headerSize + 16) }
            userType = Array(bytes[offset + headerSize ..< offset + headerSize + 16])
            headerSize += 16
        }
        if let size, size < UInt64(headerSize) || size > UInt64(Int64.max) {
            throw .invalidSize(type: type, size: size, offset: offset)
        }
        return BoxHeader(type: type, size: size.map { Int64($0) }, userType: userType, largeSize: small == 1)
    }
}
