/// Completes the moov FFmpeg writes at the start of a fragmented movie (empty_moov), before any sample, with
/// what only the first packets tell: an edit list per track for its start delay (the B-frame reordering
/// delay of H.264, the 1024 priming samples of AAC), so a crash-left file starts audio and video together
/// as a finalized one does; and a `mehd` (the fragments' total duration) in `mvex`, kept current after each
/// fragment, so readers that look only at the moov (GStreamer) see more than the first fragment.
///
/// Pure bytes in, bytes out: the writer puts the result over the space it reserved after the moov.
public enum FragmentedHeader {
    /// A moov that is not laid out as FFmpeg's muxer writes one.
    public enum HeaderError: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let what): "fragmented movie header: \(what)" }
        }
    }

    /// The completed moov, and where in it the total duration is kept.
    public struct Completed: Equatable, Sendable {
        public var moov: [UInt8]
        /// Where mehd's 64-bit duration sits in `moov`.
        public var durationOffset: Int
        /// mvhd's time scale, the unit of that duration.
        public var timescale: UInt32
    }

    /// `startDelays`: per track ID, the media time (in the track's time scale) where presentation starts.
    public static func completing(_ moov: [UInt8], startDelays: [UInt32: Int64]) throws(HeaderError) -> Completed {
        guard moov.count >= 8, FourCC(moov, at: 4) == "moov", Int(BigEndian.uint32(moov, at: 0)) == moov.count else {
            throw .malformed("not a moov box")
        }
        var timescale: UInt32 = 0
        var body: [UInt8] = []
        var durationOffset = -1
        for child in BoxReader.children(of: moov, in: 8 ..< moov.count) {
            let bytes = Array(moov[child.range])
            switch child.type {
            case "mvhd":
                // Version 0: time scale after version/flags and two 32-bit dates; version 1: two 64-bit dates.
                guard bytes.count >= 32 else { throw .malformed("short mvhd") }
                timescale = BigEndian.uint32(bytes, at: bytes[8] == 1 ? 28 : 20)
                body += bytes
            case "trak":
                body += try trakWithEditList(bytes, startDelays: startDelays)
            case "mvex":
                durationOffset = 8 + body.count + 8 + 12
                body += mvexWithDuration(bytes)
            default:
                body += bytes
            }
        }
        guard timescale > 0 else { throw .malformed("no mvhd time scale") }
        guard durationOffset > 0 else { throw .malformed("no mvex") }
        var result: [UInt8] = []
        BoxWriter.box("moov", into: &result) { $0 += body }
        return Completed(moov: result, durationOffset: durationOffset, timescale: timescale)
    }

    /// The trak with an `edts` after its `tkhd` when its track has a start delay (and none yet).
    private static func trakWithEditList(_ trak: [UInt8], startDelays: [UInt32: Int64]) throws(HeaderError) -> [UInt8] {
        let children = BoxReader.children(of: trak, in: 8 ..< trak.count)
        guard let tkhd = children.first(where: { $0.type == "tkhd" }), tkhd.size >= 32 else {
            throw .malformed("trak without tkhd")
        }
        let trackID = BigEndian.uint32(trak, at: tkhd.offset + (trak[tkhd.offset + 8] == 1 ? 28 : 20))
        guard let delay = startDelays[trackID], delay > 0, delay <= Int64(Int32.max),
              !children.contains(where: { $0.type == "edts" }) else { return trak }
        var result: [UInt8] = []
        BoxWriter.box("trak", into: &result) { content in
            for child in children {
                content += trak[child.range]
                guard child.type == "tkhd" else { continue }
                BoxWriter.box("edts", into: &content) { edts in
                    BoxWriter.fullBox("elst", into: &edts) { elst in
                        BigEndian.append(UInt32(1), to: &elst)              // one entry
                        BigEndian.append(UInt32(0), to: &elst)              // duration 0: all of the (fragmented) media
                        BigEndian.append(UInt32(delay), to: &elst)          // media time where presentation starts
                        BigEndian.append(UInt32(0x0001_0000), to: &elst)    // rate 1.0
                    }
                }
            }
        }
        return result
    }

    /// The mvex with a version-1 `mehd` first (duration 0 until the first fragment is on disk).
    private static func mvexWithDuration(_ mvex: [UInt8]) -> [UInt8] {
        let children = BoxReader.children(of: mvex, in: 8 ..< mvex.count).filter { $0.type != "mehd" }
        var result: [UInt8] = []
        BoxWriter.box("mvex", into: &result) { content in
            BoxWriter.fullBox("mehd", version: 1, into: &content) { mehd in
                BigEndian.append(UInt64(0), to: &mehd)
            }
            for child in children { content += mvex[child.range] }
        }
        return result
    }
}
