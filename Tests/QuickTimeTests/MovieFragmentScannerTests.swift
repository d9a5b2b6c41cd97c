import QuickTime
import Testing

/// The fragment scan on a file built in the test: ftyp, then two fragments whose track runs find their data
/// each way the format allows (default-base-is-moof with a data offset, following the previous track's
/// data, an explicit base data offset), the second with a 64-bit mdat.
@Suite struct MovieFragmentScannerTests {
    private func append(_ value: UInt32, _ out: inout [UInt8]) { BigEndian.append(value, to: &out) }

    /// One traf: its tfhd (with the given flags and fields) and a trun.
    private func traf(track: UInt32, tfhdFlags: UInt32, baseOffset: UInt64? = nil, defaultSize: UInt32? = nil,
                      trunFlags: UInt32, dataOffset: Int32? = nil, entries: [[UInt32]], into out: inout [UInt8]) {
        BoxWriter.box("traf", into: &out) { traf in
            BoxWriter.fullBox("tfhd", flags: tfhdFlags, into: &traf) { body in
                append(track, &body)
                if let baseOffset { BigEndian.append(baseOffset, to: &body) }
                if let defaultSize { append(defaultSize, &body) }
            }
            BoxWriter.fullBox("tfdt", version: 1, into: &traf) { BigEndian.append(UInt64(0), to: &$0) }
            BoxWriter.fullBox("trun", flags: trunFlags, into: &traf) { body in
                append(UInt32(entries.count), &body)
                if let dataOffset { append(UInt32(bitPattern: dataOffset), &body) }
                for entry in entries { for field in entry { append(field, &body) } }
            }
        }
    }

    private func moof(sequence: UInt32, _ trafs: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes: [UInt8] = []
        BoxWriter.box("moof", into: &bytes) { moof in
            BoxWriter.fullBox("mfhd", into: &moof) { append(sequence, &$0) }
            trafs(&moof)
        }
        return bytes
    }

    /// The file, and where each moof and each mdat's payload starts.
    private func file() -> (bytes: [UInt8], moofs: [Int64], payloads: [Int64]) {
        var bytes: [UInt8] = []
        BoxWriter.box("ftyp", into: &bytes) { $0 += Array("iso5".utf8) + [0, 0, 2, 0] + Array("iso5iso6mp41".utf8) }
        // Fragment 1. Track 1: base is the moof, data offset past moof and mdat header, sizes and durations
        // per sample. Track 2: no base, so its data follows track 1's; every sample of the default size 7.
        let moof1At = Int64(bytes.count)
        var probe = moof(sequence: 1) { _ in }
        let firstMoof = { (dataOffset: Int32) in
            self.moof(sequence: 1) { moof in
                traf(track: 1, tfhdFlags: 0x02_0000, trunFlags: 0x301, dataOffset: dataOffset,
                     entries: [[512, 100], [512, 50], [512, 25]], into: &moof)
                traf(track: 2, tfhdFlags: 0x10, defaultSize: 7, trunFlags: 0x100, entries: [[1024], [1024]], into: &moof)
            }
        }
        probe = firstMoof(0)
        bytes += firstMoof(Int32(probe.count + 8))
        BoxWriter.box("mdat", into: &bytes) { $0 += [UInt8](repeating: 0xAB, count: 175 + 14) }
        let payload1 = moof1At + Int64(probe.count + 8)
        // Fragment 2: an explicit base data offset (the mdat payload, behind a 64-bit header), no data offset.
        let moof2At = Int64(bytes.count)
        let secondMoof = { (base: UInt64) in
            self.moof(sequence: 2) { moof in
                traf(track: 1, tfhdFlags: 0x01, baseOffset: base, trunFlags: 0x200, entries: [[30], [40]], into: &moof)
            }
        }
        let moof2 = secondMoof(0)
        let payload2 = moof2At + Int64(moof2.count + 16)
        bytes += secondMoof(UInt64(payload2))
        bytes += BoxHeader(type: "mdat", size: 16 + 70, largeSize: true).encoded() + [UInt8](repeating: 0xCD, count: 70)
        return (bytes, [moof1At, moof2At], [payload1, payload2])
    }

    @Test func findsEveryTrackRun() throws {
        let (bytes, moofs, payloads) = file()
        let scanner = MovieFragmentScanner(bytes)
        let boxes = try scanner.topLevelBoxes(from: 0, to: Int64(bytes.count))
        #expect(boxes.map(\.type) == ["ftyp", "moof", "mdat", "moof", "mdat"])
        #expect(boxes.last?.size == 86 && boxes.reduce(0) { $0 + $1.size } == Int64(bytes.count))
        let fragments = try scanner.fragments(in: boxes)
        #expect(fragments == [
            .init(moofOffset: moofs[0], runs: [.init(trackID: 1, dataStart: payloads[0], sampleSizes: [100, 50, 25]),
                                               .init(trackID: 2, dataStart: payloads[0] + 175, sampleSizes: [7, 7])]),
            .init(moofOffset: moofs[1], runs: [.init(trackID: 1, dataStart: payloads[1], sampleSizes: [30, 40])]),
        ])
    }

    @Test func leavesOutWhatIsStillBeingWritten() throws {
        let (bytes, moofs, _) = file()
        let scanner = MovieFragmentScanner(bytes)
        let end = Int64(bytes.count)
        // The last mdat one byte short; then only 12 bytes of its 16-byte header.
        #expect(try scanner.topLevelBoxes(from: 0, to: end - 1).map(\.type) == ["ftyp", "moof", "mdat", "moof"])
        #expect(try scanner.topLevelBoxes(from: 0, to: end - 86 + 12).map(\.type) == ["ftyp", "moof", "mdat", "moof"])
        // From a fragment on: only what starts there.
        #expect(try scanner.topLevelBoxes(from: moofs[1], to: end).map(\.type) == ["moof", "mdat"])
    }

    @Test func refusesARunShorterThanItsSampleCount() throws {
        // A trun that claims 5 samples with sizes but holds 3.
        let broken = moof(sequence: 1) { moof in
            BoxWriter.box("traf", into: &moof) { traf in
                BoxWriter.fullBox("tfhd", flags: 0x02_0000, into: &traf) { append(1, &$0) }
                BoxWriter.fullBox("trun", flags: 0x200, into: &traf) { body in
                    append(5, &body)
                    for size in [1, 2, 3] as [UInt32] { append(size, &body) }
                }
            }
        }
        #expect(throws: MovieFragmentScanner.ScanError.self) { try MovieFragmentScanner.runs(inMoof: broken, at: 0) }
        #expect(throws: MovieFragmentScanner.ScanError.self) {
            try MovieFragmentScanner([0, 0, 0, 4, 0x6D, 0x6F, 0x6F, 0x66]).topLevelBoxes(from: 0, to: 8)
        }
    }
}
