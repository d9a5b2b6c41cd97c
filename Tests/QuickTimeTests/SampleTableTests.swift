import QuickTime
import Testing

/// Sample-table compaction: the boxes written for hand-made samples, byte for byte, as FFmpeg 5.1's mov
/// muxer writes them (movenc.c: the stts/ctts runs, stss and sdtp for video only, stsc chunking by file
/// contiguity up to 1 MiB, co64 once the last sample starts past 4 GiB).
@Suite struct SampleTableTests {
    /// The table boxes by type, each box's content after version and flags, as 32-bit words.
    private func tables(_ table: SampleTable, isVideo: Bool = true) -> [String: [UInt32]] {
        var bytes: [UInt8] = []
        table.writeBoxes(isVideo: isVideo, into: &bytes)
        var result: [String: [UInt32]] = [:]
        for box in BoxReader.children(of: bytes, in: 0 ..< bytes.count) {
            let body = Array(bytes[box.contentRange.lowerBound + 4 ..< box.range.upperBound])
            result[box.type.description] = box.type == "sdtp" ? body.map(UInt32.init)
                : stride(from: 0, to: body.count, by: 4).map { BigEndian.uint32(body, at: $0) }
        }
        return result
    }

    private func types(_ table: SampleTable, isVideo: Bool = true) -> [String] {
        var bytes: [UInt8] = []
        table.writeBoxes(isVideo: isVideo, into: &bytes)
        return BoxReader.children(of: bytes, in: 0 ..< bytes.count).map(\.type.description)
    }

    /// Appends samples back to back from `offset`.
    private func table(_ samples: [Sample], from offset: Int64 = 100) throws -> SampleTable {
        var table = SampleTable()
        var position = offset
        for sample in samples {
            try table.append(sample, at: position)
            position += Int64(sample.size)
        }
        return table
    }

    @Test func timeRunsEndWithTheLastSamplesOwnDuration() throws {
        let samples = [0, 512, 1024, 2048].enumerated().map { index, time in
            Sample(decodeTime: Int64(time), duration: index == 3 ? 1000 : 512, size: 10, isKeyframe: true)
        }
        let boxes = tables(try table(samples))
        // Steps 512, 512, 1024, then the last sample's 1000.
        #expect(boxes["stts"] == [3, 2, 512, 1, 1024, 1, 1000])
        #expect(boxes["ctts"] == nil, "no composition offsets, no ctts")
        #expect(boxes["stsz"] == [10, 4], "equal sizes: one size for all")
    }

    @Test func presentationOffsetsRunInCtts() throws {
        // x264's order with two B-frames: I P B B, decode times from -1024.
        let offsets: [Int64] = [1024, 2048, 0, 0, 2048, -512]
        let samples = offsets.enumerated().map { index, offset in
            Sample(decodeTime: Int64(index - 2) * 512, presentationOffset: offset, duration: 512, size: 10 + index,
                   isKeyframe: index == 0)
        }
        let table = try table(samples)
        let boxes = tables(table)
        #expect(boxes["ctts"] == [5, 1, 1024, 1, 2048, 2, 0, 1, 2048, 1, UInt32(bitPattern: -512)])
        #expect(boxes["stsz"] == [0, 6, 10, 11, 12, 13, 14, 15])
        #expect(types(table) == ["stts", "stss", "ctts", "stsc", "stsz", "stco"])
        #expect(table.first?.decodeTime == -1024 && table.presentationEnd == 3072 + 512 && table.decodeDuration == 6 * 512)
        // Audio tracks get no ctts (the muxer writes it for video only).
        #expect(tables(table, isVideo: false)["ctts"] == nil)
    }

    @Test func syncSamplesOnlyWhenNotAllAreKeyframes() throws {
        let allKeys = try table((0 ..< 4).map { Sample(decodeTime: Int64($0), duration: 1, size: 5, isKeyframe: true) })
        #expect(tables(allKeys)["stss"] == nil)
        let some = try table((0 ..< 5).map { Sample(decodeTime: Int64($0), duration: 1, size: 5, isKeyframe: $0 % 2 == 0) })
        #expect(tables(some)["stss"] == [3, 1, 3, 5])
        #expect(tables(some, isVideo: false)["stss"] == nil, "video only")
        // No keyframe at all: no table either (every sample would be listed as not sync otherwise).
        let none = try table((0 ..< 3).map { Sample(decodeTime: Int64($0), duration: 1, size: 5, isKeyframe: false) })
        #expect(tables(none)["stss"] == nil)
    }

    @Test func disposableSamplesGetDependencyFlags() throws {
        let samples = (0 ..< 4).map { Sample(decodeTime: Int64($0), duration: 1, size: 5, isKeyframe: $0 == 0, isDisposable: $0 == 2) }
        let table = try table(samples)
        // A sync sample depends on nothing (2 << 4), others do (1 << 4); nothing depends on a disposable one (2 << 2).
        #expect(tables(table)["sdtp"] == [0x20, 0x10, 0x18, 0x10])
        #expect(types(table) == ["stts", "stss", "sdtp", "stsc", "stsz", "stco"])
    }

    @Test func chunksFollowContiguityAndTheOneMebibyteCap() throws {
        var table = SampleTable()
        let sample = { (time: Int64, size: Int) in Sample(decodeTime: time, duration: 1, size: size, isKeyframe: true) }
        // Two back to back, a gap, two back to back, a gap, three back to back.
        try table.append(sample(0, 10), at: 1000)
        try table.append(sample(1, 10), at: 1010)
        try table.append(sample(2, 10), at: 2000)
        try table.append(sample(3, 10), at: 2010)
        try table.append(sample(4, 10), at: 3000)
        try table.append(sample(5, 10), at: 3010)
        try table.append(sample(6, 10), at: 3020)
        // Then contiguous samples of 400 KiB: the chunk closes before it would reach 1 MiB.
        var offset: Int64 = 10_000
        for time in 7 ..< 10 {
            try table.append(sample(Int64(time), 400 << 10), at: offset)
            offset += 400 << 10
        }
        let boxes = tables(table)
        // Samples per chunk 2, 2, 3, 2 (800 KiB), 1: an entry where the count changes.
        #expect(boxes["stsc"] == [4, 1, 2, 1, 3, 3, 1, 4, 2, 1, 5, 1, 1])
        #expect(boxes["stco"] == [5, 1000, 2000, 3000, 10_000, 10_000 + 800 << 10])
        #expect(table.chunkCount == 5)
    }

    @Test func offsetsPast4GiBSwitchToCo64() throws {
        let below = Int64(UInt32.max) - 100
        var table = SampleTable()
        try table.append(Sample(decodeTime: 0, duration: 1, size: 50, isKeyframe: true), at: 4096)
        try table.append(Sample(decodeTime: 1, duration: 1, size: 50, isKeyframe: true), at: below)
        try table.append(Sample(decodeTime: 2, duration: 1, size: 200, isKeyframe: true), at: below + 50)
        #expect(types(table).last == "stco", "every sample starts below 4 GiB")
        // The next sample continues the chunk that starts below 4 GiB but itself starts past it: the muxer
        // decides by the last sample's offset (co64_required), so the table switches with no chunk past 4 GiB.
        try table.append(Sample(decodeTime: 3, duration: 1, size: 50, isKeyframe: true), at: below + 250)
        #expect(types(table).last == "co64")
        #expect(tables(table)["co64"] == [2, 0, 4096, 0, UInt32(below)], "count, then 64-bit offsets")
        #expect(tables(table)["stsc"] == [2, 1, 1, 1, 2, 3, 1])
    }

    @Test func refusesDecodeTimesThatGoBackOrJumpTooFar() throws {
        var table = SampleTable()
        try table.append(Sample(decodeTime: 10, duration: 1, size: 1, isKeyframe: true), at: 0)
        #expect(throws: SampleTable.AppendError.decodeTimeStep(from: 10, to: 9)) {
            try table.append(Sample(decodeTime: 9, duration: 1, size: 1, isKeyframe: true), at: 1)
        }
        #expect(throws: SampleTable.AppendError.decodeTimeStep(from: 10, to: 10 + (1 << 31))) {
            try table.append(Sample(decodeTime: 10 + (1 << 31), duration: 1, size: 1, isKeyframe: true), at: 1)
        }
        #expect(throws: SampleTable.AppendError.presentationOffset(1 << 32)) {
            try table.append(Sample(decodeTime: 11, presentationOffset: 1 << 32, duration: 1, size: 1, isKeyframe: true), at: 1)
        }
    }

    @Test func aacRollGroup() throws {
        let table = try table((0 ..< 3).map { Sample(decodeTime: Int64($0) * 1024, duration: 1024, size: 9, isKeyframe: true) })
        var bytes: [UInt8] = []
        table.writeRollGroupBoxes(into: &bytes)
        // sgpd version 1: 'roll', default length 2, one entry of distance -1; sbgp: every sample in group 1.
        #expect(bytes == [0, 0, 0, 26, 0x73, 0x67, 0x70, 0x64, 1, 0, 0, 0, 0x72, 0x6F, 0x6C, 0x6C, 0, 0, 0, 2, 0, 0, 0, 1, 0xFF, 0xFF,
                          0, 0, 0, 28, 0x73, 0x62, 0x67, 0x70, 0, 0, 0, 0, 0x72, 0x6F, 0x6C, 0x6C, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 1])
    }
}
