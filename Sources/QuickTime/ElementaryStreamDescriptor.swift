/// The MPEG-4 elementary stream descriptor (esds) inside an audio sample description (ISO 14496-1 ES_Descriptor
/// with a DecoderConfigDescriptor), whose bit rates FFmpeg's muxer computes from the whole track.
enum ElementaryStreamDescriptor {
    /// Where the DecoderConfigDescriptor's maximum bit rate sits in `description` (the average follows it),
    /// if the description has an esds laid out as FFmpeg's muxer writes it.
    static func bitRateOffset(in description: [UInt8]) -> Int? {
        guard var at = BoxReader.firstOccurrence(of: "esds", in: description, from: 4) else { return nil }
        at += 8  // type, version and flags
        func skipTag(_ tag: UInt8) -> Bool {
            guard at < description.count, description[at] == tag else { return false }
            at += 1
            while at < description.count, description[at] & 0x80 != 0 { at += 1 }  // variable-length size
            at += 1
            return true
        }
        guard skipTag(0x03) else { return nil }
        at += 3  // ES_ID and flags (no dependency, URL or OCR stream in the muxer's descriptors)
        guard skipTag(0x04), at + 13 <= description.count else { return nil }
        return at + 5  // object type, stream type, buffer size
    }

    /// The maximum and average bit rates the description states.
    static func bitRates(in description: [UInt8]) -> (maximum: UInt32, average: UInt32)? {
        bitRateOffset(in: description).map { (BigEndian.uint32(description, at: $0), BigEndian.uint32(description, at: $0 + 4)) }
    }

    /// Rewrites the bit rates of the DecoderConfigDescriptor, if the description has an esds.
    static func setBitRates(in description: inout [UInt8], average: UInt32, maximum: UInt32) {
        guard let at = bitRateOffset(in: description) else { return }
        BigEndian.set(maximum, at: at, in: &description)
        BigEndian.set(average, at: at + 4, in: &description)
    }
}
