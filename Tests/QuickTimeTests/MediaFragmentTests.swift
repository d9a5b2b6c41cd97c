@testable import QuickTime
import Testing

/// A media segment's boxes read back: the scanner finds each track's samples where the data offsets say,
/// back to back in the mdat; tfdt, durations, flags and presentation offsets are as given; bad input is a
/// typed error. (End to end, ffmpeg and GStreamer decode whole streams of them: LiveStreamTests.)
@Suite struct MediaFragmentTests {
    let video = MediaFragment.Track(trackID: 1, samples: [
        Sample(decodeTime: 153_600 - 1024, presentationOffset: 1024, duration: 512, size: 1000, isKeyframe: true),
        Sample(decodeTime: 153_600 - 512, presentationOffset: 1536, duration: 512, size: 70, isKeyframe: false),
        Sample(decodeTime: 153_600, presentationOffset: -512, duration: 512, size: 30, isKeyframe: false),
    ], isVideo: true)
    let audio = MediaFragment.Track(trackID: 2, samples: [
        Sample(decodeTime: 480_000 - 1024, duration: 1024, size: 6, isKeyframe: true),
        Sample(decodeTime: 480_000, duration: 1000, size: 9, isKeyframe: false),
    ], isVideo: false)

    @Test func runsPointAtTheirSamplesInTheMdat() throws {
        let header = try MediaFragment.header(sequence: 7, tracks: [video, audio])
        let payload = (0..<(1100 + 15)).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = header + payload
        let scanner = MovieFragmentScanner(bytes)
        let boxes = try scanner.topLevelBoxes(from: 0, to: Int64(bytes.count))
        #expect(boxes.map(\.type) == ["styp", "moof", "mdat"])
        #expect(boxes[2].size == Int64(8 + payload.count) && boxes[2].offset == Int64(header.count - 8))
        let fragments = try scanner.fragments(in: boxes)
        #expect(fragments == [MovieFragmentScanner.Fragment(moofOffset: boxes[1].offset, runs: [
            MovieFragmentScanner.Run(trackID: 1, dataStart: Int64(header.count), sampleSizes: [1000, 70, 30]),
            MovieFragmentScanner.Run(trackID: 2, dataStart: Int64(header.count + 1100), sampleSizes: [6, 9]),
        ])])
    }

    @Test func headerSizeIsKnownFromTheSampleCounts() throws {
        #expect(try MediaFragment.header(sequence: 1, tracks: [video, audio]).count == MediaFragment.headerSize(sampleCounts: [3, 2]))
        #expect(try MediaFragment.header(sequence: 9, tracks: [audio]).count == MediaFragment.headerSize(sampleCounts: [2]))
    }

    @Test func fieldsAreAsGiven() throws {
        let header = try MediaFragment.header(sequence: 7, tracks: [video, audio])
        let moof = try #require(BoxReader.child("moof", of: header, in: 0..<header.count))
        let mfhd = try #require(BoxReader.child("mfhd", of: header, in: moof.contentRange))
        #expect(BigEndian.uint32(header, at: mfhd.contentRange.lowerBound + 4) == 7)
        let trafs = BoxReader.children(of: header, inside: moof).filter { $0.type == "traf" }
        #expect(trafs.count == 2)
        let tfdt = try #require(BoxReader.child("tfdt", of: header, in: trafs[0].contentRange))
        #expect(header[tfdt.contentRange.lowerBound] == 1)
        #expect(BigEndian.uint64(header, at: tfdt.contentRange.lowerBound + 4) == UInt64(153_600 - 1024))
        let trun = try #require(BoxReader.child("trun", of: header, in: trafs[0].contentRange))
        let start = trun.contentRange.lowerBound
        #expect(header[start] == 1, "version 1: signed presentation offsets")
        #expect(BigEndian.uint32(header, at: start + 4) == 3)
        // Per sample: duration, size, flags, offset.
        let third = start + 12 + 2 * 16
        #expect(BigEndian.uint32(header, at: third) == 512 && BigEndian.uint32(header, at: third + 4) == 30)
        #expect(BigEndian.uint32(header, at: start + 12 + 8) == 0x0200_0000, "a keyframe depends on nothing")
        #expect(BigEndian.uint32(header, at: third + 8) == 0x0101_0000, "other pictures are not sync samples")
        #expect(Int32(bitPattern: BigEndian.uint32(header, at: third + 12)) == -512)
        let audioRun = try #require(BoxReader.child("trun", of: header, in: trafs[1].contentRange))
        #expect(BigEndian.uint32(header, at: audioRun.contentRange.lowerBound + 12 + 16 + 8) == 0x0200_0000, "every AAC frame is a sync sample")
    }

    @Test func rejectsWhatCannotBeFragmented() {
        #expect(throws: MediaFragment.FragmentError.invalidTrack(trackID: 3, reason: "it has no sample")) {
            try MediaFragment.header(sequence: 1, tracks: [MediaFragment.Track(trackID: 3, samples: [], isVideo: true)])
        }
        var backwards = audio
        backwards.samples.reverse()
        #expect(throws: MediaFragment.FragmentError.self) { try MediaFragment.header(sequence: 1, tracks: [backwards]) }
        var negative = audio
        negative.samples[0].decodeTime = -1
        negative.samples[1].decodeTime = 0
        #expect(throws: MediaFragment.FragmentError.self) { try MediaFragment.header(sequence: 1, tracks: [negative]) }
    }

    /// Annex B pictures become length-prefixed NAL units (a 4-byte start code loses its zero); AAC stays.
    @Test func picturesAreLengthPrefixed() {
        let annexB: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5, 6]
        var out: [UInt8] = [9]
        let written = annexB.withUnsafeBufferPointer { SamplePayload.append($0, codec: .h264, to: &out) }
        #expect(out == [9, 0, 0, 0, 3, 0x67, 1, 2, 0, 0, 0, 2, 0x68, 3, 0, 0, 0, 4, 0x65, 4, 5, 6])
        #expect(written == out.count - 1)
        var aac: [UInt8] = []
        let frame: [UInt8] = [0x21, 0, 0, 1]
        _ = frame.withUnsafeBufferPointer { SamplePayload.append($0, codec: .aac, to: &aac) }
        #expect(aac == frame)
    }
}

/// RFC 6381 strings from configuration records: Apple's HLS examples ("avc1.64001F", "hvc1.1.6.L93.B0").
@Suite struct CodecStringTests {
    @Test func hevcFromItsConfigurationRecord() {
        let hvcC: [UInt8] = [1, 0x01, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 93]
        #expect(CodecString.hevc(hvcC) == "1.6.L93.B0")
        let main10HighTier: [UInt8] = [1, 0x22, 0x20, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 120]
        #expect(CodecString.hevc(main10HighTier) == "2.4.H120.90")
    }

    @Test func tracksOfAnInitSegment() {
        // moov > trak > mdia > minf > stbl > stsd > avc1 (86 bytes of fields) > avcC; a second trak with mp4a.
        func box(_ type: FourCC, _ body: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            BoxWriter.box(type, into: &out) { $0 += body }
            return out
        }
        let avc1 = box("avc1", [UInt8](repeating: 0, count: 78) + box("avcC", [1, 0x64, 0x00, 0x1F, 0xFF]))
        let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + avc1)
        let video = box("trak", box("mdia", box("minf", box("stbl", stsd))))
        let mp4a = box("mp4a", [UInt8](repeating: 0, count: 28))
        let audio = box("trak", box("mdia", box("minf", box("stbl", box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + mp4a)))))
        let initSegment = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0]) + box("moov", video + audio)
        #expect(CodecString.tracks(inInit: initSegment) == ["avc1.64001F", "mp4a.40.2"])
    }
}
