import QuickTime
import Testing

/// Annex B extradata split as FFmpeg splits it, and the record size movenc stores for it (the muxer's own
/// record for real encoders is checked in ReelTests).
@Suite struct CodecConfigurationRecordTests {
    @Test func splitsAnnexBAsFFmpegDoes() throws {
        // A VPS after a 4-byte start code, an SPS after a 3-byte one, a PPS after a 4-byte one (whose first
        // zero does not belong to the SPS).
        let bytes: [UInt8] = [0, 0, 0, 1, 0x40, 1, 2, 0, 0, 1, 0x42, 3, 0, 0, 0, 1, 0x44, 4]
        let units = try #require(CodecConfigurationRecord.nalUnits(inAnnexB: bytes))
        #expect(units == [4 ..< 7, 10 ..< 12, 16 ..< 18])
        #expect(CodecConfigurationRecord.nalUnits(inAnnexB: [1, 2, 3, 4]) == nil)
        // 23 bytes of header, three arrays of 3, and the units of 3, 2 and 2 bytes with 2-byte lengths.
        #expect(CodecConfigurationRecord.size(codec: .hevc, extradata: bytes) == 23 + 9 + 5 + 4 + 4)
        // A record already is stored as it is.
        #expect(CodecConfigurationRecord.size(codec: .hevc, extradata: [1, 2, 3]) == 3)
    }

    @Test func avcRecordKeepsParameterSetsOnly() {
        // High profile (100) SPS, a PPS and an SEI: 7 bytes of header, 2-byte lengths, and High's 4 more bytes;
        // the SEI stays out.
        let sps: [UInt8] = [0x67, 100, 0, 30, 0xAC]
        let pps: [UInt8] = [0x68, 0xEE, 0x3C]
        let sei: [UInt8] = [0x06, 5, 1, 2]
        let extradata = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 1] + sei
        #expect(CodecConfigurationRecord.size(codec: .h264, extradata: extradata) == 7 + 2 + 5 + 2 + 3 + 4)
        // Baseline (66) has no extension bytes.
        let baseline = [0, 0, 0, 1, 0x67, 66, 0, 30] + [0, 0, 1] + pps
        #expect(CodecConfigurationRecord.size(codec: .h264, extradata: baseline) == 7 + 2 + 4 + 2 + 3)
        #expect(CodecConfigurationRecord.boxType(forCodec: .h264) == "avcC" && CodecConfigurationRecord.sampleEntryTag(forCodec: .h264) == nil)
        #expect(CodecConfigurationRecord.sampleEntryTag(forCodec: .hevc) == "hvc1")
    }

    /// What a smart trim needs of a copied stream's avcC: its parameter sets (to compare with an encoder's)
    /// and the size of the lengths before each NAL unit in its samples.
    @Test func readsAStoredAVCRecord() {
        let sps: [UInt8] = [0x67, 100, 0, 30, 0xAC], pps: [UInt8] = [0x68, 0xEE, 0x3C]
        // version 1, profile, compatibility, level, 0xFF (4-byte lengths), one SPS, one PPS, High's 4 bytes.
        let record: [UInt8] = [1, 100, 0, 30, 0xFF, 0xE1, 0, 5] + sps + [1, 0, 3] + pps + [0xFD, 0xF8, 0xF8, 0]
        #expect(CodecConfigurationRecord.parameterSets(avcC: record) == [sps, pps])
        #expect(CodecConfigurationRecord.nalLengthSize(codec: .h264, record: record) == 4)
        var twoBytes = record
        twoBytes[4] = 0xFD
        #expect(CodecConfigurationRecord.nalLengthSize(codec: .h264, record: twoBytes) == 2)
        // Cut short, or Annex B extradata rather than a record: nothing.
        #expect(CodecConfigurationRecord.parameterSets(avcC: Array(record.prefix(10))) == nil)
        #expect(CodecConfigurationRecord.parameterSets(avcC: [0, 0, 0, 1] + sps) == nil)
        #expect(CodecConfigurationRecord.nalLengthSize(codec: .h264, record: [0, 0, 0, 1] + sps) == nil)
        #expect(CodecConfigurationRecord.nalLengthSize(codec: .aac, record: record) == nil)
    }

    /// An encoder's Annex B picture stored as a copied stream's samples are: each unit after its length.
    @Test func rewritesAnnexBPicturesWithLengths() {
        let picture: [UInt8] = [0, 0, 0, 1, 0x06, 5, 1] + [0, 0, 1, 0x65] + Array(repeating: 0x88, count: 300)
        let four = SamplePayload.lengthPrefixed(annexB: picture, lengthSize: 4)
        #expect(four == [0, 0, 0, 3, 0x06, 5, 1, 0, 0, 1, 45, 0x65] + Array(repeating: 0x88, count: 300))
        #expect(SamplePayload.lengthPrefixed(annexB: picture, lengthSize: 2)?.prefix(7) == [0, 3, 0x06, 5, 1, 1, 45])
        // A unit longer than one-byte lengths can say, and bytes that are not Annex B: nil.
        #expect(SamplePayload.lengthPrefixed(annexB: picture, lengthSize: 1) == nil)
        #expect(SamplePayload.lengthPrefixed(annexB: [0, 0, 0, 3, 0x06, 5, 1], lengthSize: 4) == nil)
        #expect(SamplePayload.lengthPrefixed(annexB: picture, lengthSize: 3) == nil)
    }

    /// An hvcC's VPS, SPS and PPS (its SEI array left out), and the same sets picked out of Annex B headers.
    @Test func readsTheParameterSetsOfAnHEVCRecord() {
        let vps: [UInt8] = [0x40, 1, 0x0C], sps: [UInt8] = [0x42, 1, 1], pps: [UInt8] = [0x44, 1, 0xC1], sei: [UInt8] = [0x4E, 1, 5, 9]
        var record: [UInt8] = [1] + Array(repeating: 0, count: 21) + [4]
        for (type, unit) in [(32, vps), (33, sps), (34, pps), (39, sei)] {
            record += [UInt8(0x80 | type), 0, 1, 0, UInt8(unit.count)] + unit
        }
        #expect(CodecConfigurationRecord.parameterSets(hvcC: record) == [vps, sps, pps])
        #expect(CodecConfigurationRecord.parameterSets(hvcC: Array(record.dropLast(2))) == nil)
        let annexB: [UInt8] = [0, 0, 0, 1] + vps + [0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 1] + sei
        #expect(CodecConfigurationRecord.parameterSets(annexB: annexB, codec: .hevc) == [vps, sps, pps])
        let avc: [UInt8] = [0, 0, 0, 1, 0x67, 100, 30] + [0, 0, 1, 0x68, 0xEE] + [0, 0, 1, 0x06, 5]
        #expect(CodecConfigurationRecord.parameterSets(annexB: avc, codec: .h264) == [[0x67, 100, 30], [0x68, 0xEE]])
    }
}
