/// Reads back the movie fragments (moof + mdat) a muxer has written, to learn where each track's samples
/// landed: the complete sample table written at the end points at exactly these bytes.
public struct MovieFragmentScanner {
    /// The samples of one track inside one fragment, stored back to back from `dataStart`.
    public struct Run: Equatable, Sendable {
        public var trackID: Int
        public var dataStart: Int64
        public var sampleSizes: [Int]

        public init(trackID: Int, dataStart: Int64, sampleSizes: [Int]) {
            self.trackID = trackID
            self.dataStart = dataStart
            self.sampleSizes = sampleSizes
        }
    }

    /// One moof: where it starts in the file, and its track runs in order.
    public struct Fragment: Equatable, Sendable {
        public var moofOffset: Int64
        public var runs: [Run]

        public init(moofOffset: Int64, runs: [Run]) {
            self.moofOffset = moofOffset
            self.runs = runs
        }
    }

    /// A box at the top level of the file.
    public struct TopLevelBox: Equatable, Sendable {
        public var type: FourCC
        public var offset: Int64
        public var size: Int64

        public init(type: FourCC, offset: Int64, size: Int64) {
            self.type = type
            self.offset = offset
            self.size = size
        }
    }

    /// A fragment that cannot be read, or is not laid out as the format says.
    public enum ScanError: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case unreadable(ByteReadError)

        public var description: String {
            switch self {
            case .malformed(let what): "unexpected movie fragment layout: \(what)"
            case .unreadable(let error): "unexpected movie fragment layout: \(error)"
            }
        }
    }

    /// The file (or bytes) the muxer writes.
    public let source: any RandomAccessBytes

    public init(_ source: any RandomAccessBytes) {
        self.source = source
    }

    /// The complete top-level boxes between `start` and `end` (a box running past `end`, or whose header
    /// does not fit before it, is left out: the muxer is still writing it).
    public func topLevelBoxes(from start: Int64, to end: Int64) throws(ScanError) -> [TopLevelBox] {
        var boxes: [TopLevelBox] = []
        var offset = start
        while offset + 8 <= end {
            let bytes = try read(at: offset, count: Int(min(32, end - offset)))
            let header: BoxHeader
            do {
                header = try BoxHeader.parse(bytes, at: 0)
            } catch {
                guard case let .invalidSize(type, size, _) = error else { break }  // truncated: still being written
                throw .malformed("'\(type)' box of \(size) bytes at \(offset)")
            }
            let size = header.size ?? end - offset
            guard offset + size <= end else { break }
            boxes.append(TopLevelBox(type: header.type, offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    /// The fragments among `boxes`, with the position and sizes of every track run.
    public func fragments(in boxes: [TopLevelBox]) throws(ScanError) -> [Fragment] {
        var fragments: [Fragment] = []
        for box in boxes where box.type == "moof" {
            let moof = try bytes(of: box)
            fragments.append(Fragment(moofOffset: box.offset, runs: try MovieFragmentScanner.runs(inMoof: moof, at: box.offset)))
        }
        return fragments
    }

    /// The track runs of one moof (its bytes, found at `moofOffset` in the file): where each run's data
    /// starts (tfhd's base data offset, or default-base-is-moof, or after the previous track's data; plus
    /// trun's data offset) and the size of each sample (trun's, or tfhd's default).
    public static func runs(inMoof moof: [UInt8], at moofOffset: Int64) throws(ScanError) -> [Run] {
        var runs: [Run] = []
        var previousDataEnd = moofOffset
        guard let moofHeader = try? BoxHeader.parse(moof, at: 0) else { throw .malformed("moof header at \(moofOffset)") }
        for traf in BoxReader.children(of: moof, in: moofHeader.encodedSize ..< moof.count) where traf.type == "traf" {
            var trackID = 0
            var base = moofOffset
            var defaultSize = 0
            var hasBase = false
            var dataCursor: Int64? = nil
            for child in BoxReader.children(of: moof, inside: traf) where child.type == "tfhd" || child.type == "trun" {
                let fields = child.contentRange
                guard fields.count >= 8 else { throw .malformed("'\(child.type)' of \(child.size) bytes in track \(trackID)") }
                let flags = Int(BigEndian.uint32(moof, at: fields.lowerBound) & 0xFF_FFFF)
                var field = fields.lowerBound + 4
                func next(_ width: Int) throws(ScanError) -> Int {
                    guard field + width <= fields.upperBound else {
                        throw .malformed("'\(child.type)' of track \(trackID) shorter than its fields")
                    }
                    defer { field += width }
                    return field
                }
                if child.type == "tfhd" {
                    trackID = Int(BigEndian.uint32(moof, at: try next(4)))
                    if flags & 0x1 != 0 {
                        base = Int64(bitPattern: BigEndian.uint64(moof, at: try next(8)))
                        hasBase = true
                    }
                    if flags & 0x2 != 0 { _ = try next(4) }  // sample description index
                    if flags & 0x8 != 0 { _ = try next(4) }  // default duration
                    if flags & 0x10 != 0 { defaultSize = Int(BigEndian.uint32(moof, at: try next(4))) }
                    // Without an explicit base, a track's data follows the previous track's (unless
                    // default-base-is-moof says the moof is the base).
                    if !hasBase && flags & 0x20000 == 0 { base = previousDataEnd }
                } else {
                    let count = Int(BigEndian.uint32(moof, at: try next(4)))
                    var start = dataCursor ?? base
                    if flags & 0x1 != 0 { start = base + Int64(Int32(bitPattern: BigEndian.uint32(moof, at: try next(4)))) }
                    if flags & 0x4 != 0 { _ = try next(4) }  // first sample flags
                    let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4
                    guard perSample == 0 ? count <= 1 << 24 : count <= (fields.upperBound - field) / perSample else {
                        throw .malformed("trun of track \(trackID) shorter than its \(count) samples")
                    }
                    let sizeField = flags & 0x100 != 0 ? 4 : 0
                    var sizes: [Int] = []
                    sizes.reserveCapacity(count)
                    for sample in 0 ..< count {
                        let entry = field + sample * perSample
                        sizes.append(flags & 0x200 != 0 ? Int(BigEndian.uint32(moof, at: entry + sizeField)) : defaultSize)
                    }
                    dataCursor = start + Int64(sizes.reduce(0, +))
                    previousDataEnd = dataCursor!
                    runs.append(Run(trackID: trackID, dataStart: start, sampleSizes: sizes))
                }
            }
        }
        return runs
    }

    /// The whole bytes of a top-level box.
    public func bytes(of box: TopLevelBox) throws(ScanError) -> [UInt8] {
        try read(at: box.offset, count: Int(box.size))
    }

    private func read(at offset: Int64, count: Int) throws(ScanError) -> [UInt8] {
        do {
            return try source.read(at: offset, count: count)
        } catch {
            throw .unreadable(error)
        }
    }
}
