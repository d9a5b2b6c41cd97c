/// The three header boxes that carry a duration (mvhd, tkhd, mdhd): full boxes whose two dates and whose
/// duration take 32 bits in version 0 and 64 in version 1, with the same fields between and after them.
enum TimedHeaderBox {
    /// Bytes between the dates and the duration: the time scale (mvhd, mdhd), or the track ID and a
    /// reserved word (tkhd).
    private static func middleSize(_ type: FourCC) -> Int { type == "tkhd" ? 8 : 4 }

    /// Whether `box` is long enough for its version's layout.
    static func isWellFormed(_ bytes: [UInt8], _ box: Box) -> Bool {
        let start = box.contentRange.lowerBound
        guard box.contentRange.count >= 4 else { return false }
        let wide = bytes[start] == 1 ? 8 : 4
        return box.contentRange.count >= 4 + 2 * wide + middleSize(box.type) + wide
    }

    /// The field right after the dates (mvhd and mdhd: the time scale; tkhd: the track ID).
    static func firstMiddleField(_ bytes: [UInt8], _ box: Box) -> UInt32 {
        let start = box.contentRange.lowerBound
        return BigEndian.uint32(bytes, at: start + 4 + 2 * (bytes[start] == 1 ? 8 : 4))
    }

    /// Appends `box` with `duration`, written in `version`'s layout (dates kept, widened or narrowed).
    static func append(_ bytes: [UInt8], _ box: Box, duration: Int64, version: UInt8, to out: inout [UInt8]) {
        let start = box.contentRange.lowerBound
        let oldWide = bytes[start] == 1
        let flags = BigEndian.uint32(bytes, at: start) & 0xFF_FFFF
        var field = start + 4
        func take(wide: Bool) -> UInt64 {
            defer { field += wide ? 8 : 4 }
            return wide ? BigEndian.uint64(bytes, at: field) : UInt64(BigEndian.uint32(bytes, at: field))
        }
        let created = take(wide: oldWide), modified = take(wide: oldWide)
        let middle = bytes[field ..< field + middleSize(box.type)]
        field += middle.count
        _ = take(wide: oldWide)
        let rest = bytes[field ..< box.range.upperBound]
        BoxWriter.fullBox(box.type, version: version, flags: flags, into: &out) { body in
            if version == 1 {
                BigEndian.append(created, to: &body)
                BigEndian.append(modified, to: &body)
            } else {
                BigEndian.append(UInt32(truncatingIfNeeded: created), to: &body)
                BigEndian.append(UInt32(truncatingIfNeeded: modified), to: &body)
            }
            body += middle
            if version == 1 {
                BigEndian.append(UInt64(bitPattern: duration), to: &body)
            } else {
                BigEndian.append(UInt32(truncatingIfNeeded: duration), to: &body)
            }
            body += rest
        }
    }
}
