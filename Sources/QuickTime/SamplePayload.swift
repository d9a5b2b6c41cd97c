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
