import QuickTime
import Testing

/// Box headers written and read back: 32-bit and 64-bit sizes, boxes that run to the end, uuid boxes, and
/// what is refused. FourCC with QuickTime's © codes.
@Suite struct BoxHeaderTests {
    private func roundTrip(_ header: BoxHeader, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let bytes = header.encoded()
        #expect(bytes.count == header.encodedSize, sourceLocation: sourceLocation)
        #expect(try BoxHeader.parse(bytes, at: 0) == header, sourceLocation: sourceLocation)
        // The same header found in the middle of other bytes.
        #expect(try BoxHeader.parse([9, 9, 9] + bytes + [7], at: 3) == header, sourceLocation: sourceLocation)
        return bytes
    }

    @Test func thirtyTwoBitSizes() throws {
        let bytes = try roundTrip(BoxHeader(type: "moov", size: 1234))
        #expect(bytes == [0, 0, 0x04, 0xD2, 0x6D, 0x6F, 0x6F, 0x76])
        #expect(try roundTrip(BoxHeader(type: "free", size: 8)).count == 8)
        #expect(try roundTrip(BoxHeader(type: "mdat", size: Int64(UInt32.max))).count == 8, "the largest 32-bit size")
    }

    @Test func sixtyFourBitSizes() throws {
        // Past 4 GiB the size moves to 64 bits after a size field of 1.
        let large = BoxHeader(type: "mdat", size: 5 << 30)
        #expect(large.hasLargeSize && large.encodedSize == 16)
        let bytes = try roundTrip(large)
        #expect(bytes == [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 1, 0x40, 0, 0, 0])
        #expect(try roundTrip(BoxHeader(type: "mdat", size: Int64(UInt32.max) + 1)).count == 16)
        // A writer may ask for 64 bits for a small box (to grow it in place later).
        let asked = try roundTrip(BoxHeader(type: "skip", size: 16, largeSize: true))
        #expect(asked == [0, 0, 0, 1, 0x73, 0x6B, 0x69, 0x70, 0, 0, 0, 0, 0, 0, 0, 16])
    }

    @Test func boxesThatRunToTheEnd() throws {
        #expect(try roundTrip(BoxHeader(type: "mdat", size: nil)) == [0, 0, 0, 0, 0x6D, 0x64, 0x61, 0x74])
        // A 64-bit size of 0 means the same.
        let wide = try BoxHeader.parse([0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 0], at: 0)
        #expect(wide.size == nil && wide.hasLargeSize && wide.encodedSize == 16)
        #expect(try roundTrip(wide).count == 16)
    }

    @Test func uuidBoxesCarryTheirExtendedType() throws {
        let userType: [UInt8] = Array(0 ..< 16)
        let small = BoxHeader(type: "uuid", size: 40, userType: userType)
        #expect(small.encodedSize == 24)
        let bytes = try roundTrip(small)
        #expect(Array(bytes[8...]) == userType)
        let large = BoxHeader(type: "uuid", size: 6 << 30, userType: userType)
        #expect(large.encodedSize == 32)
        #expect(Array(try roundTrip(large)[16...]) == userType)
    }

    @Test func truncatedAndImpossibleHeadersAreRefused() {
        #expect(throws: BoxHeader.ParseError.truncated(offset: 0, needed: 8)) { try BoxHeader.parse([0, 0, 0, 8, 0x66, 0x72, 0x65], at: 0) }
        #expect(throws: BoxHeader.ParseError.truncated(offset: 0, needed: 16)) {
            try BoxHeader.parse([0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0], at: 0)
        }
        let uuid: [UInt8] = [0, 0, 0, 40, 0x75, 0x75, 0x69, 0x64] + Array(repeating: 0, count: 15)
        #expect(throws: BoxHeader.ParseError.truncated(offset: 0, needed: 24)) { try BoxHeader.parse(uuid, at: 0) }
        #expect(throws: BoxHeader.ParseError.invalidSize(type: "free", size: 4, offset: 0)) {
            try BoxHeader.parse([0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65], at: 0)
        }
        // A uuid box smaller than its own 24-byte header.
        #expect(throws: BoxHeader.ParseError.invalidSize(type: "uuid", size: 20, offset: 0)) {
            try BoxHeader.parse([0, 0, 0, 20, 0x75, 0x75, 0x69, 0x64] + Array(repeating: 0, count: 16), at: 0)
        }
        #expect(throws: BoxHeader.ParseError.invalidSize(type: "mdat", size: 12, offset: 0)) {
            try BoxHeader.parse([0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 12], at: 0)
        }
    }

    @Test func fourCharacterCodes() {
        let encoder: FourCC = "©swr"
        #expect(encoder.bytes == [0xA9, 0x73, 0x77, 0x72])
        #expect(encoder.description == "©swr")
        #expect(FourCC([0xA9, 0x73, 0x77, 0x72], at: 0) == encoder)
        #expect(FourCC(validating: "moov")?.rawValue == 0x6D6F_6F76)
        #expect(FourCC(validating: "moo") == nil && FourCC(validating: "moovs") == nil && FourCC(validating: "mo€v") == nil)
    }
}

/// The box tree reader and writer on boxes built in the test.
@Suite struct BoxTreeTests {
    /// moov { mvhd(version 1, flags 2, 4 bytes), trak { tkhd(4 bytes) } }, then a free box.
    private func tree() -> [UInt8] {
        var bytes: [UInt8] = []
        BoxWriter.box("moov", into: &bytes) { moov in
            BoxWriter.fullBox("mvhd", version: 1, flags: 2, into: &moov) { $0 += [1, 2, 3, 4] }
            BoxWriter.box("trak", into: &moov) { trak in
                BoxWriter.fullBox("tkhd", into: &trak) { $0 += [5, 6, 7, 8] }
            }
        }
        BoxWriter.box("free", into: &bytes) { $0 += [0, 0] }
        return bytes
    }

    @Test func writesSizesAndFullBoxHeaders() {
        let bytes = tree()
        #expect(bytes.count == 8 + 16 + 8 + 16 + 10)
        #expect(Array(bytes[0 ..< 8]) == [0, 0, 0, 48, 0x6D, 0x6F, 0x6F, 0x76])
        #expect(Array(bytes[8 ..< 24]) == [0, 0, 0, 16, 0x6D, 0x76, 0x68, 0x64, 1, 0, 0, 2, 1, 2, 3, 4])
    }

    @Test func walksChildrenAndPaths() throws {
        let bytes = tree()
        let top = BoxReader.children(of: bytes, in: 0 ..< bytes.count)
        #expect(top.map(\.type) == ["moov", "free"])
        #expect(top.map(\.size) == [48, 10])
        let moov = top[0]
        #expect(BoxReader.children(of: bytes, inside: moov).map(\.type) == ["mvhd", "trak"])
        let tkhd = try #require(BoxReader.descendant(["moov", "trak", "tkhd"], of: bytes, in: 0 ..< bytes.count))
        #expect(Array(bytes[tkhd.contentRange]) == [0, 0, 0, 0, 5, 6, 7, 8])
        #expect(BoxReader.descendant(["moov", "mdia"], of: bytes, in: 0 ..< bytes.count) == nil)
        #expect(BoxReader.firstOccurrence(of: "tkhd", in: bytes, from: 0) == tkhd.offset + 4)
    }

    @Test func stopsAtWhatDoesNotFitAndRunsSizeZeroToTheEnd() {
        var bytes = tree()
        // A box whose size runs past the end is left out, with anything after it.
        let cut = Array(bytes[0 ..< bytes.count - 1])
        #expect(BoxReader.children(of: cut, in: 0 ..< cut.count).map(\.type) == ["moov"])
        // A last box of size 0 takes the rest.
        bytes += [0, 0, 0, 0, 0x6D, 0x64, 0x61, 0x74, 1, 2, 3]
        let boxes = BoxReader.children(of: bytes, in: 0 ..< bytes.count)
        #expect(boxes.map(\.type) == ["moov", "free", "mdat"])
        #expect(boxes.last?.size == 11 && boxes.last?.header.size == nil)
    }
}
