/// A sample's bytes as an MP4 file stores them. x264 and x265 give Annex B pictures (each NAL unit after a
/// 00 00 01 start code); an `avc1`/`hvc1` track wants each unit after its length in 4 bytes (the avcC and
/// hvcC FFmpeg writes say 4), which is what FFmpeg's mov muxer rewrites them to. Other codecs' samples
/// (AAC, or pictures already length-prefixed) are stored as they are.
public enum SamplePayload {
    /// Appends `bytes` as stored for a track of `codec`; returns how many bytes that took.
    @discardableResult
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, codec: Codec, to out: inout [UInt8]) -> Int {
        let before = out.count
        let rewritten = (codec == .h264 || codec == .hevc) && CodecConfigurationRecord.forEachNALUnit(inAnnexB: bytes) { unit in
            BigEndian.append(UInt32(unit.count), to: &out)
            out.append(contentsOf: bytes[unit])
        }
        if !rewritten { out.append(contentsOf: bytes) }
        return out.count - before
    }
}

extension SamplePayload {
    /// An Annex B picture's NAL units each after its length in `lengthSize` bytes (1, 2 or 4): how an
    /// `avc1`/`hvc1` sample description already holding length-prefixed samples (a copied stream's, whose
    /// avcC says the size) stores them. Nil when the bytes are not Annex B or a unit does not fit the size.
    public static func lengthPrefixed<Bytes: RandomAccessCollection>(annexB bytes: Bytes, lengthSize: Int) -> [UInt8]?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard [1, 2, 4].contains(lengthSize) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var fits = true
        let split = CodecConfigurationRecord.forEachNALUnit(inAnnexB: bytes) { unit in
            guard unit.count < 1 << (8 * lengthSize) || lengthSize == 4 else {
                fits = false
                return
            }
            for shift in stride(from: 8 * (lengthSize - 1), through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: unit.count >> shift)) }
            out.append(contentsOf: bytes[unit])
        }
        return split && fits ? out : nil
    }
}
