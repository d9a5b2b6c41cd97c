/// The RFC 6381 codec string of each track of an init segment ("avc1.64001F", "hvc1.1.6.L93.B0",
/// "mp4a.40.2"), as an HLS multivariant playlist's CODECS attribute and a browser's canPlayType want them:
/// read from the sample entry and its configuration record (ISO 14496-15 annex E for HEVC).
public enum CodecString {
    /// One string per track, in track order; nil for a track whose sample entry is not one of these.
    public static func tracks(inInit bytes: [UInt8]) -> [String?] {
        guard let moov = BoxReader.child("moov", of: bytes, in: 0..<bytes.count) else { return [] }
        return BoxReader.children(of: bytes, inside: moov).filter { $0.type == "trak" }.map { trak in
            guard let stsd = BoxReader.descendant(["mdia", "minf", "stbl", "stsd"], of: bytes, in: trak.contentRange),
                  let entry = BoxReader.children(of: bytes, in: (stsd.contentRange.lowerBound + 8)..<stsd.range.upperBound).first
            else { return nil }
            let inside = entry.contentRange
            func record(_ type: FourCC) -> ArraySlice<UInt8>? {
                guard let at = BoxReader.firstOccurrence(of: type, in: bytes, from: inside.lowerBound), at < inside.upperBound,
                      let box = BoxReader.children(of: bytes, in: (at - 4)..<inside.upperBound).first else { return nil }
                return bytes[box.contentRange]
            }
            switch entry.type {
            case "avc1", "avc3":
                guard let avcC = record("avcC"), avcC.count >= 4 else { return nil }
                let start = avcC.startIndex
                return "\(entry.type).\(hex(avcC[start + 1]))\(hex(avcC[start + 2]))\(hex(avcC[start + 3]))"
            case "hvc1", "hev1":
                guard let hvcC = record("hvcC"), hvcC.count >= 13 else { return nil }
                return "\(entry.type)." + hevc(Array(hvcC))
            case "mp4a":
                return "mp4a.40.2"  // AAC-LC, the only AAC Reel encodes
            default:
                return nil
            }
        }
    }

    /// profile space and profile, the compatibility flags bit-reversed, tier and level, the constraint bytes
    /// without trailing zeros.
    static func hevc(_ hvcC: [UInt8]) -> String {
        let space = ["", "A", "B", "C"][Int(hvcC[1] >> 6)]
        let tier = hvcC[1] & 0x20 != 0 ? "H" : "L"
        let profile = hvcC[1] & 0x1F
        let compatibility = BigEndian.uint32(hvcC, at: 2)
        var reversed: UInt32 = 0
        for bit in 0..<32 where compatibility & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(hvcC[6..<12])
        while constraints.last == 0 { constraints.removeLast() }
        let flags = String(reversed, radix: 16, uppercase: true)
        return "\(space)\(profile).\(flags).\(tier)\(hvcC[12])" + constraints.map { "." + String($0, radix: 16, uppercase: true) }.joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + text : text
    }
}
