/// The moov FFmpeg's mov muxer writes at the start of a fragmented movie (`empty_moov`), before any sample:
/// every box of the regular moov it would write at the end for the same streams (movie and track headers,
/// handlers, sample descriptions, user data) but the durations, the edit lists and the sample tables, which
/// depend on the samples. MovieIndexBuilder fills those in.
public struct MovieBoxTemplate: Sendable {
    /// A moov without what the template needs: a movie header, and per track its headers, handler and
    /// sample description, with nothing but sample tables beside it.
    public enum TemplateError: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let what): "unexpected movie header: \(what)" }
        }
    }

    /// What the template says of one track.
    public struct Track: Equatable, Sendable {
        /// tkhd's track ID (FFmpeg numbers tracks from 1 in stream order).
        public var id: UInt32
        /// The media header's time scale: the unit of the track's sample times.
        public var timescale: Int32
        /// The media handler: `vide`, `soun`.
        public var handler: FourCC
        /// Its trak box in the template's bytes.
        public var box: Box
    }

    /// The moov, whole.
    public let bytes: [UInt8]
    /// mvhd's time scale: the unit of the movie and track header durations and of edit list durations.
    public let movieTimescale: Int32
    /// The tracks in the order of their trak boxes.
    public let tracks: [Track]
    /// Where the moov's children lie in `bytes`.
    let contentRange: Range<Int>

    /// The tables a sample table box may hold, all of them written again from the samples.
    static let sampleTables: Set<FourCC> = ["stts", "stss", "stps", "sdtp", "ctts", "cslg", "stsc", "stsz", "stz2",
                                            "stco", "co64", "sgpd", "sbgp"]

    /// Reads and checks `moov` (the whole box).
    public init(_ moov: [UInt8]) throws(TemplateError) {
        guard let header = try? BoxHeader.parse(moov, at: 0), header.type == "moov", header.size == Int64(moov.count) else {
            throw .malformed("not a moov box")
        }
        bytes = moov
        contentRange = header.encodedSize ..< moov.count
        let children = BoxReader.children(of: moov, in: contentRange)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }), TimedHeaderBox.isWellFormed(moov, mvhd) else {
            throw .malformed("no movie header")
        }
        movieTimescale = Int32(truncatingIfNeeded: TimedHeaderBox.firstMiddleField(moov, mvhd))
        guard movieTimescale > 0 else { throw .malformed("movie time scale \(movieTimescale)") }
        var tracks: [Track] = []
        for trak in children where trak.type == "trak" {
            tracks.append(try MovieBoxTemplate.track(moov, trak))
        }
        guard Set(tracks.map(\.id)).count == tracks.count else { throw .malformed("two tracks with one ID") }
        self.tracks = tracks
    }

    private static func track(_ moov: [UInt8], _ trak: Box) throws(TemplateError) -> Track {
        guard let tkhd = BoxReader.child("tkhd", of: moov, in: trak.contentRange), TimedHeaderBox.isWellFormed(moov, tkhd),
              let mdia = BoxReader.child("mdia", of: moov, in: trak.contentRange),
              let mdhd = BoxReader.child("mdhd", of: moov, in: mdia.contentRange), TimedHeaderBox.isWellFormed(moov, mdhd),
              let hdlr = BoxReader.child("hdlr", of: moov, in: mdia.contentRange), hdlr.contentRange.count >= 12,
              let stbl = BoxReader.descendant(["minf", "stbl"], of: moov, in: mdia.contentRange) else {
            throw .malformed("a track without its headers or sample table")
        }
        let id = TimedHeaderBox.firstMiddleField(moov, tkhd)
        let timescale = Int32(truncatingIfNeeded: TimedHeaderBox.firstMiddleField(moov, mdhd))
        guard timescale > 0 else { throw .malformed("track \(id) has time scale \(timescale)") }
        let tables = BoxReader.children(of: moov, inside: stbl)
        guard tables.contains(where: { $0.type == "stsd" }) else { throw .malformed("track \(id) has no sample description") }
        if let other = tables.first(where: { $0.type != "stsd" && !sampleTables.contains($0.type) }) {
            throw .malformed("track \(id) has an unexpected '\(other.type)' in its sample table")
        }
        return Track(id: id, timescale: timescale, handler: FourCC(moov, at: hdlr.contentRange.lowerBound + 8), box: trak)
    }
}
