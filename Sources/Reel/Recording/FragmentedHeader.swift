/// Completes the moov FFmpeg writes at the start of a fragmented movie (empty_moov), before any sample, with
/// what only the first packets tell: an edit list per track for its start delay (the B-frame reordering
/// delay of H.264, the 1024 priming samples of AAC), so a crash-left file starts audio and video together
/// as a finalized one does; and a `mehd` (the fragments' total duration) in `mvex`, kept current after each
/// fragment, so readers that look only at the moov (GStreamer) see more than the first fragment.
///
/// Pure bytes in, bytes out: MovieFragmenter writes the result over the space it reserved after the moov.
enum FragmentedHeader {
    enum HeaderError: Error, CustomStringConvertible {
        case malformed(String)
        var description: String { "fragmented movie header: \({ if case .malformed(let what) = self { return what } else { return "" } }())" }
    }

    struct Completed: Equatable {
        var moov: [UInt8]
        /// Where mehd's 64-bit duration sits in `moov`.
        var durationOffset: Int
        /// mvhd's time scale, the unit of that duration.
        var timescale: UInt32
    }

    /// `startDelays`: per track ID, the media time (in the track's time scale) where presentation starts.
    static func completing(_ moov: [UInt8], startDelays: [UInt32: Int64]) throws -> Completed {
        guard moov.count >= 8, BoxReader.fourCC(moov, 4) == "moov", Int(BoxReader.u32(moov, 0)) == moov.count else {
            throw HeaderError.malformed("not a moov box")
        }
        var timescale: UInt32 = 0
        var body: [UInt8] = []
        var durationOffset = -1
        for child in BoxReader.children(moov, from: 8, to: moov.count) {
            let bytes = Array(moov[child.offset ..< child.offset + child.size])
            switch child.type {
            case "mvhd":
                // Version 0: time scale after version/flags and two 32-bit dates; version 1: two 64-bit dates.
                timescale = BoxReader.u32(bytes, bytes[8] == 1 ? 28 : 20)
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
        guard timescale > 0 else { throw HeaderError.malformed("no mvhd time scale") }
        guard durationOffset > 0 else { throw HeaderError.malformed("no mvex") }
        var result: [UInt8] = []
        BoxWriter.box("moov", into: &result) { $0 += body }
        return Completed(moov: result, durationOffset: durationOffset, timescale: timescale)
    }

    /// The trak with an `edts` after its `tkhd` when its track has a start delay (and none yet).
    private static func trakWithEditList(_ trak: [UInt8], startDelays: [UInt32: Int64]) throws -> [UInt8] {
        let children = BoxReader.children(trak, from: 8, to: trak.count)
        guard let tkhd = children.first(where: { $0.type == "tkhd" }) else { throw HeaderError.malformed("trak without tkhd") }
        let trackID = BoxReader.u32(trak, tkhd.offset + (trak[tkhd.offset + 8] == 1 ? 28 : 20))
        guard let delay = startDelays[trackID], delay > 0, delay <= Int64(Int32.max),
              !children.contains(where: { $0.type == "edts" }) else { return trak }
        var result: [UInt8] = []
        BoxWriter.box("trak", into: &result) { content in
            for child in children {
                content += trak[child.offset ..< child.offset + child.size]
                guard child.type == "tkhd" else { continue }
                BoxWriter.box("edts", into: &content) { edts in
                    BoxWriter.fullBox("elst", into: &edts) { elst in
                        BoxWriter.u32(1, &elst)               // one entry
                        BoxWriter.u32(0, &elst)               // duration 0: all of the (fragmented) media
                        BoxWriter.u32(UInt32(delay), &elst)   // media time where presentation starts
                        BoxWriter.u32(0x0001_0000, &elst)     // rate 1.0
                    }
                }
            }
        }
        return result
    }

    /// The mvex with a version-1 `mehd` first (duration 0 until the first fragment is on disk).
    private static func mvexWithDuration(_ mvex: [UInt8]) -> [UInt8] {
        let children = BoxReader.children(mvex, from: 8, to: mvex.count).filter { $0.type != "mehd" }
        var result: [UInt8] = []
        BoxWriter.box("mvex", into: &result) { content in
            BoxWriter.box("mehd", into: &content) { mehd in
                mehd += [1, 0, 0, 0]
                BoxWriter.u64(0, &mehd)
            }
            for child in children { content += mvex[child.offset ..< child.offset + child.size] }
        }
        return result
    }
}
