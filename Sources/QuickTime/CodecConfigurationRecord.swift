/// The decoder configuration record a QuickTime video sample description carries (ISO 14496-15: avcC for
/// H.264, hvcC for HEVC), as FFmpeg 5.1's mov muxer makes it from an encoder's Annex B extradata; and the
/// sample entry tag Reel gives each codec. Streams are named by FFmpeg's codec names (h264, hevc).
public enum CodecConfigurationRecord {
    /// The sample entry (the stream's codec tag) in every movie Reel writes, where it is not the muxer's own
    /// choice: HEVC is `hvc1` (parameter sets only in the sample description), which QuickTime and Safari
    /// require; FFmpeg would write `hev1`. H.264 keeps the muxer's `avc1`.
    public static func sampleEntryTag(forCodec codec: Codec) -> FourCC? {
        codec == .hevc ? "hvc1" : nil
    }

    /// The box holding the record inside the sample description.
    public static func boxType(forCodec codec: Codec) -> FourCC? {
        switch codec {
        case .h264: "avcC"
        case .hevc: "hvcC"
        default: nil
        }
    }

    /// Bytes of the record (the box's content) the muxer writes for `extradata`: a record already (its first
    /// byte is the version, 1) is stored as it is; Annex B parameter sets are rewritten with 2-byte lengths
    /// in place of start codes, behind a fixed header (ff_isom_write_avcc, ff_isom_write_hvcc). Other codecs:
    /// the extradata's size.
    public static func size(codec: Codec, extradata: [UInt8]) -> Int {
        guard extradata.first != 1, let units = nalUnits(inAnnexB: extradata) else { return extradata.count }
        switch codec {
        case .h264: return avcSize(units, in: extradata)
        case .hevc: return hevcSize(units, in: extradata)
        default: return extradata.count
        }
    }

    /// avcC: version, profile, compatibility, level, length size, SPS count (6 bytes), each SPS with a 2-byte
    /// length, the PPS count and each PPS likewise; profiles other than Baseline, Main and Extended add
    /// chroma format, bit depths and the SPS-extension count (4 bytes) and the extensions.
    private static func avcSize(_ units: [Range<Int>], in bytes: [UInt8]) -> Int {
        var size = 6 + 1
        var profile: UInt8 = 0
        var extensions = 0
        for unit in units {
            switch bytes[unit.lowerBound] & 0x1F {
            case 7:  // SPS
                if profile == 0, unit.count > 1 { profile = bytes[unit.lowerBound + 1] }
                size += 2 + unit.count
            case 8: size += 2 + unit.count  // PPS
            case 13: extensions += 2 + unit.count  // SPS extension
            default: break  // SEI and the rest stay out of avcC
            }
        }
        if ![66, 77, 88].contains(profile) { size += 4 + extensions }
        return size
    }

    /// hvcC: a 23-byte header, then one array per NAL unit type present among VPS, SPS, PPS and SEI (prefix,
    /// suffix): 3 bytes (type, count) and each unit with a 2-byte length. x265 puts an SEI with its version
    /// and settings (about 2 KB) among its headers, and it is kept.
    private static func hevcSize(_ units: [Range<Int>], in bytes: [UInt8]) -> Int {
        var size = 23
        var types: Set<UInt8> = []
        for unit in units {
            let type = (bytes[unit.lowerBound] >> 1) & 0x3F
            guard [32, 33, 34, 39, 40].contains(type) else { continue }
            if types.insert(type).inserted { size += 3 }
            size += 2 + unit.count
        }
        return size
    }

    /// The size of the length before each NAL unit in the samples a stored record describes (avcC: its fifth
    /// byte's low bits, hvcC: its 22nd's, plus one); nil for Annex B extradata or a record too short.
    public static func nalLengthSize(codec: Codec, record: [UInt8]) -> Int? {
        let at = codec == .h264 ? 4 : codec == .hevc ? 21 : nil
        guard let at, record.first == 1, record.count > at else { return nil }
        return Int(record[at] & 3) + 1
    }

    /// The sequence and picture parameter sets an avcC record holds, in order (SPS first); nil when the bytes
    /// are not a whole record.
    public static func parameterSets(avcC bytes: [UInt8]) -> [[UInt8]]? {
        guard bytes.first == 1, bytes.count > 6 else { return nil }
        var sets: [[UInt8]] = []
        var at = 5
        for kind in 0..<2 {
            guard at < bytes.count else { return nil }
            let count = Int(bytes[at] & (kind == 0 ? 0x1F : 0xFF))
            at += 1
            for _ in 0..<count {
                guard at + 2 <= bytes.count else { return nil }
                let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                guard at + 2 + length <= bytes.count else { return nil }
                sets.append(Array(bytes[(at + 2)..<(at + 2 + length)]))
                at += 2 + length
            }
        }
        return sets
    }

    /// The VPS, SPS and PPS an hvcC record holds, in its order (its SEI arrays left out); nil when the bytes are
    /// not a whole record.
    public static func parameterSets(hvcC bytes: [UInt8]) -> [[UInt8]]? {
        guard bytes.first == 1, bytes.count >= 23 else { return nil }
        var sets: [[UInt8]] = []
        var at = 23
        for _ in 0..<Int(bytes[22]) {
            guard at + 3 <= bytes.count else { return nil }
            let type = bytes[at] & 0x3F
            let count = Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= bytes.count else { return nil }
                let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                guard at + 2 + length <= bytes.count else { return nil }
                if [32, 33, 34].contains(type) { sets.append(Array(bytes[(at + 2)..<(at + 2 + length)])) }
                at += 2 + length
            }
        }
        return sets
    }

    /// The parameter sets among Annex B headers (an encoder's extradata): H.264's SPS and PPS, HEVC's VPS, SPS
    /// and PPS, in order; SEI and the rest left out.
    public static func parameterSets(annexB bytes: [UInt8], codec: Codec) -> [[UInt8]] {
        (nalUnits(inAnnexB: bytes) ?? []).filter { unit in
            guard !unit.isEmpty else { return false }
            return codec == .hevc ? [32, 33, 34].contains((bytes[unit.lowerBound] >> 1) & 0x3F) : [7, 8].contains(bytes[unit.lowerBound] & 0x1F)
        }.map { Array(bytes[$0]) }
    }

    /// The NAL units of an Annex B stream, as FFmpeg splits it (ff_avc_parse_nal_units): each runs from
    /// after a 00 00 01 start code to the next one, less the zero byte a 4-byte start code begins with. Nil
    /// when the bytes do not start with a start code.
    public static func nalUnits<Bytes: RandomAccessCollection>(inAnnexB bytes: Bytes) -> [Range<Int>]?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var units: [Range<Int>] = []
        return forEachNALUnit(inAnnexB: bytes) { units.append($0) } ? units : nil
    }

    /// Calls `body` with each NAL unit's range, as `nalUnits` splits them, without collecting them (a live
    /// stream rewrites every picture so). False, and no call, when the bytes do not start with a start code.
    @discardableResult
    public static func forEachNALUnit<Bytes: RandomAccessCollection>(inAnnexB bytes: Bytes, _ body: (Range<Int>) -> Void) -> Bool
    where Bytes.Element == UInt8, Bytes.Index == Int {
        func startCode(from index: Int) -> Int? {
            var at = index
            while at + 2 < bytes.count {
                if bytes[at] == 0 && bytes[at + 1] == 0 && bytes[at + 2] == 1 { return at }
                at += 1
            }
            return nil
        }
        guard let first = startCode(from: 0), bytes[..<first].allSatisfy({ $0 == 0 }) else { return false }
        precondition(bytes.startIndex == 0, "NAL units are found in bytes indexed from 0")
        var start = first + 3
        while start < bytes.count {
            var end = bytes.count
            var next: Int? = nil
            if let code = startCode(from: start) {
                next = code
                end = code > start && bytes[code - 1] == 0 ? code - 1 : code
            }
            if end > start { body(start ..< end) }
            guard let next else { break }
            start = next + 3
        }
        return true
    }
}
