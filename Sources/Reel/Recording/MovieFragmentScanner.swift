import FoundationEssentials
import Glibc

/// Reads back the movie fragments (moof + mdat) the mov muxer has written to a file, to learn where each
/// track's samples landed: the complete sample table written at the end points at exactly these bytes.
struct MovieFragmentScanner {
    /// The samples of one track inside one fragment, stored back to back from `dataStart`.
    struct Run: Equatable {
        var trackID: Int
        var dataStart: Int64
        var sampleSizes: [Int]
    }

    struct Fragment: Equatable {
        var moofOffset: Int64
        var runs: [Run]
    }

    struct TopLevelBox: Equatable {
        var type: String
        var offset: Int64
        var size: Int64
    }

    enum ScanError: Error, CustomStringConvertible {
        case malformed(String)
        var description: String {
            switch self { case .malformed(let what): return "unexpected movie fragment layout: \(what)" }
        }
    }

    let descriptor: Int32

    /// The complete top-level boxes between `start` and `end` (a box running past `end` is left out).
    func topLevelBoxes(from start: Int64, to end: Int64) throws -> [TopLevelBox] {
        var boxes: [TopLevelBox] = []
        var offset = start
        while offset + 8 <= end {
            let header = try read(at: offset, count: 16 <= end - offset ? 16 : 8)
            var size = Int64(BoxReader.u32(header, 0))
            if size == 1 {
                guard header.count == 16 else { break }
                size = Int64(bitPattern: UInt64(BoxReader.u32(header, 8)) << 32 | UInt64(BoxReader.u32(header, 12)))
            } else if size == 0 {
                size = end - offset
            }
            guard size >= 8 else { throw ScanError.malformed("box of \(size) bytes at \(offset)") }
            guard offset + size <= end else { break }
            boxes.append(TopLevelBox(type: BoxReader.fourCC(header, 4), offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    /// The fragments among `boxes`, with the position and sizes of every track run.
    func fragments(in boxes: [TopLevelBox]) throws -> [Fragment] {
        try boxes.filter { $0.type == "moof" }.map { box in
            let moof = try read(at: box.offset, count: Int(box.size))
            return Fragment(moofOffset: box.offset, runs: try runs(inMoof: moof, at: box.offset))
        }
    }

    private func runs(inMoof moof: [UInt8], at moofOffset: Int64) throws -> [Run] {
        var runs: [Run] = []
        var previousDataEnd = moofOffset
        for traf in BoxReader.children(moof, from: 8, to: moof.count) where traf.type == "traf" {
            var trackID = 0
            var base = moofOffset
            var defaultSize = 0
            var hasBase = false
            var dataCursor: Int64? = nil
            for child in BoxReader.children(moof, from: traf.offset + 8, to: traf.offset + traf.size) {
                let flags = Int(BoxReader.u32(moof, child.offset + 8) & 0xFF_FFFF)
                var field = child.offset + 12
                if child.type == "tfhd" {
                    trackID = Int(BoxReader.u32(moof, field)); field += 4
                    if flags & 0x1 != 0 {
                        base = Int64(bitPattern: UInt64(BoxReader.u32(moof, field)) << 32 | UInt64(BoxReader.u32(moof, field + 4)))
                        hasBase = true
                        field += 8
                    }
                    if flags & 0x2 != 0 { field += 4 }
                    if flags & 0x8 != 0 { field += 4 }
                    if flags & 0x10 != 0 { defaultSize = Int(BoxReader.u32(moof, field)); field += 4 }
                    // Without an explicit base, a track's data follows the previous track's (unless
                    // default-base-is-moof says the moof is the base).
                    if !hasBase && flags & 0x20000 == 0 { base = previousDataEnd }
                } else if child.type == "trun" {
                    let count = Int(BoxReader.u32(moof, field)); field += 4
                    var start = dataCursor ?? base
                    if flags & 0x1 != 0 {
                        start = base + Int64(Int32(bitPattern: BoxReader.u32(moof, field)))
                        field += 4
                    }
                    if flags & 0x4 != 0 { field += 4 }
                    let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4
                    var sizes: [Int] = []
                    sizes.reserveCapacity(count)
                    for sample in 0 ..< count {
                        let entry = field + sample * perSample
                        guard entry + perSample <= child.offset + child.size else {
                            throw ScanError.malformed("trun of track \(trackID) shorter than its \(count) samples")
                        }
                        let sizeField = entry + (flags & 0x100 != 0 ? 4 : 0)
                        sizes.append(flags & 0x200 != 0 ? Int(BoxReader.u32(moof, sizeField)) : defaultSize)
                    }
                    let run = Run(trackID: trackID, dataStart: start, sampleSizes: sizes)
                    dataCursor = start + Int64(sizes.reduce(0, +))
                    previousDataEnd = dataCursor!
                    runs.append(run)
                }
            }
        }
        return runs
    }

    /// The payload of the first box of `type` nested anywhere inside the box at `box` (found by walking
    /// every container level; sample entries hold their children after a fixed header).
    func nestedPayload(ofType type: String, in box: TopLevelBox) throws -> [UInt8]? {
        let bytes = try read(at: box.offset, count: Int(box.size))
        var from = 8
        while let at = BoxReader.firstOccurrence(of: type, in: bytes, from: from) {
            let size = Int(BoxReader.u32(bytes, at - 4))
            if size >= 8, at - 4 + size <= bytes.count { return Array(bytes[at + 4 ..< at - 4 + size]) }
            from = at + 1
        }
        return nil
    }

    /// The whole bytes of a top-level box.
    func bytes(of box: TopLevelBox) throws -> [UInt8] { try read(at: box.offset, count: Int(box.size)) }

    private func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got == count else {
            throw ScanError.malformed("cannot read \(count) bytes at \(offset) (\(String(cString: strerror(errno))))")
        }
        return bytes
    }
}
