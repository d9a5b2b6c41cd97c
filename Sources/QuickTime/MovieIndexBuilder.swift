/// Builds the complete index (a regular moov) of a fragmented recording, so that a cleanly stopped file
/// becomes an ordinary QuickTime movie over the same bytes: the moov FFmpeg 5.1's mov muxer would write for
/// the same samples at the same offsets.
///
/// Samples are noted as the writer hands them to the fragmenting muxer, then placed once their fragment is
/// on disk and scanned (the offsets and stored sizes come from the file). The tables are kept compactly
/// (SampleTable: ~4 bytes a sample, where FFmpeg's own index costs ~48). Everything else comes from the
/// fragmented moov the muxer wrote at the start (MovieBoxTemplate), with the durations and edit lists
/// computed as movenc.c computes them.
public struct MovieIndexBuilder: Sendable {
    /// The samples written and those found in the file disagree, or the template does not hold the streams.
    public enum IndexError: Error, Equatable, CustomStringConvertible {
        case mismatch(String)
        public var description: String {
            switch self { case .mismatch(let what): "cannot index the movie fragments: \(what)" }
        }
    }

    /// The fragmented moov the index is made from.
    public let template: MovieBoxTemplate
    /// The streams, in order; sample times are noted in each one's time base.
    public let tracks: [TrackDescription]
    /// Per track: the unit of its sample times in the file (1 / the template's media time scale).
    public let trackTimeBases: [TimeBase]
    /// Per track, samples handed to the muxer and not yet found in a fragment on disk.
    private var pending: [[Sample]]
    private var pendingHeads: [Int]
    /// Per track, the samples placed so far.
    public private(set) var tables: [SampleTable]

    /// `tracks` in stream order: stream `i` is the template's track `i + 1` (FFmpeg numbers tracks so).
    public init(template: MovieBoxTemplate, tracks: [TrackDescription]) throws(IndexError) {
        guard template.tracks.count == tracks.count else {
            throw .mismatch("the movie header has \(template.tracks.count) tracks for \(tracks.count) streams")
        }
        var timeBases: [TimeBase] = []
        for (index, description) in tracks.enumerated() {
            guard let track = template.tracks.first(where: { $0.id == UInt32(index + 1) }) else {
                throw .mismatch("no track \(index + 1) in the movie header")
            }
            guard track.handler == (description.isVideo ? "vide" : "soun") else {
                throw .mismatch("track \(track.id) is '\(track.handler)' in the movie header")
            }
            timeBases.append(TimeBase(timescale: track.timescale))
        }
        self.template = template
        self.tracks = tracks
        trackTimeBases = timeBases
        pending = Array(repeating: [], count: tracks.count)
        pendingHeads = Array(repeating: 0, count: tracks.count)
        tables = Array(repeating: SampleTable(), count: tracks.count)
    }

    /// Notes a sample just handed to the fragmenting muxer (times in the track description's time base).
    public mutating func notePending(track: Int, _ sample: Sample) {
        pending[track].append(sample)
    }

    /// Samples noted but not yet found in a fragment on disk.
    public var unplacedSamples: Int { pending.indices.reduce(0) { $0 + pending[$1].count - pendingHeads[$1] } }

    /// Adds the samples of fragments just written, at their positions in the file and with the sizes stored
    /// there. `each` sees every sample in file order: placed in the file with times in the track's time
    /// base, and as it was noted.
    public mutating func place(_ fragments: [MovieFragmentScanner.Fragment],
                               each: (SamplePlacement, Sample) -> Void) throws(IndexError) {
        for fragment in fragments {
            for run in fragment.runs {
                let track = run.trackID - 1
                guard pending.indices.contains(track) else { throw .mismatch("unknown track \(run.trackID)") }
                guard pendingHeads[track] + run.sampleSizes.count <= pending[track].count else {
                    throw .mismatch("track \(run.trackID) has more samples in the file than were written")
                }
                var position = run.dataStart
                for size in run.sampleSizes {
                    var noted = pending[track][pendingHeads[track]]
                    pendingHeads[track] += 1
                    noted.size = size
                    let sample = noted.converted(from: tracks[track].timeBase, to: trackTimeBases[track])
                    do {
                        try tables[track].append(sample, at: position)
                    } catch {
                        throw .mismatch("track \(run.trackID): \(error)")
                    }
                    each(SamplePlacement(track: track, offset: position, sample: sample), noted)
                    position += Int64(size)
                }
            }
        }
        for track in pending.indices where pendingHeads[track] > 4096 || pendingHeads[track] == pending[track].count {
            pending[track].removeFirst(pendingHeads[track])
            pendingHeads[track] = 0
        }
    }

    /// The complete moov for every sample placed: the template's boxes with the durations, edit lists and
    /// tables of the samples, its `mvex` left out, and tracks without samples left out (as the muxer does).
    public func finishIndex() -> [UInt8] {
        let moov = template.bytes
        let movieTimeBase = TimeBase(timescale: template.movieTimescale)
        var longest: Int64 = 0
        var lastTrackID: UInt32 = 1
        for (index, table) in tables.enumerated() where table.count > 0 {
            longest = max(longest, trackTimeBases[index].convert(table.presentationEnd, to: movieTimeBase, rounding: .up))
            lastTrackID = max(lastTrackID, UInt32(index + 1))
        }
        var out: [UInt8] = []
        out.reserveCapacity(moov.count + tables.reduce(0) { $0 + 6 * $1.count + 12 * $1.chunkCount } + 1024)
        BoxWriter.box("moov", into: &out) { body in
            for child in BoxReader.children(of: moov, in: template.contentRange) {
                switch child.type {
                case "mvhd":
                    TimedHeaderBox.append(moov, child, duration: longest, version: longest < Int64(UInt32.max) ? 0 : 1, to: &body)
                    BigEndian.set(lastTrackID + 1, at: body.count - 4, in: &body)  // next track ID
                case "trak":
                    // The template's tracks are this builder's, numbered from 1 in stream order (checked at init).
                    guard let id = template.tracks.first(where: { $0.box.offset == child.offset })?.id,
                          tables[Int(id) - 1].count > 0 else { continue }
                    writeTrack(Int(id) - 1, moov, child, movieTimeBase: movieTimeBase, into: &body)
                case "mvex":
                    continue
                default:
                    body += moov[child.range]
                }
            }
        }
        return out
    }

    private func writeTrack(_ track: Int, _ moov: [UInt8], _ trak: Box, movieTimeBase: TimeBase, into out: inout [UInt8]) {
        let table = tables[track]
        let trackTimeBase = trackTimeBases[track]
        BoxWriter.box("trak", into: &out) { body in
            for child in BoxReader.children(of: moov, inside: trak) {
                switch child.type {
                case "tkhd":
                    // The presented length: from 0 on the movie's timeline (the edit list starts there) to the
                    // latest presentation end.
                    let duration = trackTimeBase.convert(table.presentationEnd, to: movieTimeBase, rounding: .up)
                    TimedHeaderBox.append(moov, child, duration: duration, version: duration < Int64(Int32.max) ? 0 : 1, to: &body)
                    EditList(table, trackTimeBase: trackTimeBase, movieTimeBase: movieTimeBase).write(into: &body)
                case "edts":
                    continue
                case "mdia":
                    writeMedia(track, moov, child, into: &body)
                default:
                    body += moov[child.range]
                }
            }
        }
    }

    private func writeMedia(_ track: Int, _ moov: [UInt8], _ mdia: Box, into out: inout [UInt8]) {
        let table = tables[track]
        BoxWriter.box("mdia", into: &out) { body in
            for child in BoxReader.children(of: moov, inside: mdia) {
                switch child.type {
                case "mdhd":
                    let span = table.presentedSpan
                    TimedHeaderBox.append(moov, child, duration: span, version: span < Int64(Int32.max) ? 0 : 1, to: &body)
                case "minf":
                    BoxWriter.box("minf", into: &body) { minf in
                        for part in BoxReader.children(of: moov, inside: child) {
                            if part.type == "stbl" {
                                writeSampleTable(track, moov, part, into: &minf)
                            } else {
                                minf += moov[part.range]
                            }
                        }
                    }
                default:
                    body += moov[child.range]
                }
            }
        }
    }

    private func writeSampleTable(_ track: Int, _ moov: [UInt8], _ stbl: Box, into out: inout [UInt8]) {
        let table = tables[track]
        let description = tracks[track]
        BoxWriter.box("stbl", into: &out) { body in
            for child in BoxReader.children(of: moov, inside: stbl) where child.type == "stsd" {
                var stsd = Array(moov[child.range])
                if let stated = ElementaryStreamDescriptor.bitRates(in: stsd), table.decodeDuration > 0 {
                    // An MPEG-4 description carries the track's average bit rate (movenc: all bytes over the
                    // track duration, in unsigned 64-bit arithmetic kept to 32 bits) and a maximum of at least
                    // that: the muxer's stated rate, which the template already holds.
                    let timescale = UInt64(trackTimeBases[track].denominator)
                    let average = UInt32(truncatingIfNeeded: UInt64(table.totalBytes) &* 8 &* timescale / UInt64(table.decodeDuration))
                    ElementaryStreamDescriptor.setBitRates(in: &stsd, average: average, maximum: max(stated.maximum, average))
                }
                body += stsd
            }
            table.writeBoxes(isVideo: description.isVideo, into: &body)
            if description.codec == .aac { table.writeRollGroupBoxes(into: &body) }
        }
    }
}
