/// A box inside a byte array: its header and where it lies.
public struct Box: Equatable, Sendable {
    /// The header as read (type, size as written, uuid extended type).
    public var header: BoxHeader
    /// Where the header starts.
    public var offset: Int
    /// Bytes of the whole box, header included.
    public var size: Int

    public var type: FourCC { header.type }
    public var range: Range<Int> { offset ..< offset + size }
    /// What follows the header: a container's children, a full box's version and flags and fields.
    public var contentRange: Range<Int> { offset + header.encodedSize ..< offset + size }
}

/// Walks the box tree of a byte array (a moov, a moof, a whole small file).
public enum BoxReader {
    /// The boxes laid end to end in `range`, in order. A box whose size is 0 runs to the end of the range;
    /// the walk stops, without error, at the first header that is malformed or box that runs past the range
    /// (what follows it cannot be found).
    public static func children(of bytes: [UInt8], in range: Range<Int>) -> [Box] {
        var boxes: [Box] = []
        var offset = range.lowerBound
        let end = min(range.upperBound, bytes.count)
        while offset + 8 <= end {
            guard let header = try? BoxHeader.parse(bytes, at: offset), header.encodedSize <= end - offset else { break }
            let size = header.size.map { Int($0) } ?? end - offset
            guard size <= end - offset else { break }
            boxes.append(Box(header: header, offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    /// The boxes inside a container box.
    public static func children(of bytes: [UInt8], inside box: Box) -> [Box] {
        children(of: bytes, in: box.contentRange)
    }

    /// The first box of `type` among the children of `range`.
    public static func child(_ type: FourCC, of bytes: [UInt8], in range: Range<Int>) -> Box? {
        children(of: bytes, in: range).first { $0.type == type }
    }

    /// The box reached by following `path` down from `range`, each type a child of the box before
    /// (`["moov", "trak", "tkhd"]` is the first track's header).
    public static func descendant(_ path: [FourCC], of bytes: [UInt8], in range: Range<Int>) -> Box? {
        var found: Box? = nil
        var within = range
        for type in path {
            guard let box = child(type, of: bytes, in: within) else { return nil }
            found = box
            within = box.contentRange
        }
        return found
    }

    /// Where the four bytes of `type` first occur at or after `start`: a box found without walking the
    /// levels between (sample entries hold their children after fields of their own). The box's header
    /// starts 4 bytes before.
    public static func firstOccurrence(of type: FourCC, in bytes: [UInt8], from start: Int) -> Int? {
        let pattern = type.bytes
        var at = max(0, start)
        while at + 4 <= bytes.count {
            if bytes[at] == pattern[0] && bytes[at + 1] == pattern[1] && bytes[at + 2] == pattern[2] && bytes[at + 3] == pattern[3] {
                return at
            }
            at += 1
        }
        return nil
    }
}
