import Foundation
import QuickTime
import Testing

/// FragmentedHeader on a moov FFmpeg's muxer wrote for a fragmented movie (the fuzz corpus' fragmented.mov,
/// one H.264 track).
@Suite struct FragmentedHeaderTests {
    static func muxerMoov() throws -> [UInt8] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../FuzzCorpus/media/fragmented.mov").standardizedFileURL.path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let moov = try #require(BoxReader.child("moov", of: bytes, in: 0 ..< bytes.count))
        return Array(bytes[moov.range])
    }

    /// Box paths of a box tree, for comparing structure.
    static func paths(_ bytes: [UInt8], in range: Range<Int>, prefix: String = "") -> [String] {
        BoxReader.children(of: bytes, in: range).flatMap { child -> [String] in
            let path = prefix + child.type.description
            let containers: Set<FourCC> = ["moov", "trak", "edts", "mdia", "minf", "stbl", "mvex"]
            return [path] + (containers.contains(child.type) ? paths(bytes, in: child.contentRange, prefix: path + "/") : [])
        }
    }

    @Test func editListsAndATotalDurationAreAdded() throws {
        let moov = try Self.muxerMoov()
        let completed = try FragmentedHeader.completing(moov, startDelays: [1: 1024])
        #expect(BigEndian.uint32(completed.moov, at: 0) == UInt32(completed.moov.count))
        let before = Self.paths(moov, in: 0 ..< moov.count)
        let after = Self.paths(completed.moov, in: 0 ..< completed.moov.count)
        // Everything kept, in order, plus the track's edit list and mehd first in mvex.
        #expect(after.filter { !$0.contains("edts") && !$0.hasSuffix("mehd") } == before)
        #expect(after.filter { $0.hasSuffix("/edts/elst") } == ["moov/trak/edts/elst"])
        #expect(after.contains("moov/mvex/mehd"))
        #expect(completed.moov.count == moov.count + 36 + 20)
        #expect(completed.timescale == 1000)
        // The duration field: 8 zero bytes right after mehd's version 1 header.
        #expect(FourCC(completed.moov, at: completed.durationOffset - 8) == "mehd")
        #expect(completed.moov[completed.durationOffset - 4] == 1)
        #expect(completed.moov[completed.durationOffset ..< completed.durationOffset + 8].allSatisfy { $0 == 0 })
        // The edit entry: duration 0 (all the media), media time 1024, rate 1.
        let elst = try #require(BoxReader.firstOccurrence(of: "elst", in: completed.moov, from: 0))
        #expect(Array(completed.moov[elst + 8 ..< elst + 24]) == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 1, 0, 0])
    }

    @Test func tracksWithoutDelayGetNoEditListAndEditsAreNotDoubled() throws {
        let moov = try Self.muxerMoov()
        // Track 2 does not exist here and track 1 has no delay: no edit list.
        let none = try FragmentedHeader.completing(moov, startDelays: [1: 0, 2: 1024])
        #expect(Self.paths(none.moov, in: 0 ..< none.moov.count).filter { $0.hasSuffix("/edts") }.isEmpty)
        let once = try FragmentedHeader.completing(moov, startDelays: [1: 1024])
        let twice = try FragmentedHeader.completing(once.moov, startDelays: [1: 2048])
        #expect(twice.moov == once.moov, "an existing edit list and mehd are kept, not doubled")
    }

    @Test func somethingElseIsRefused() {
        #expect(throws: FragmentedHeader.HeaderError.self) {
            try FragmentedHeader.completing([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65], startDelays: [:])
        }
    }
}
