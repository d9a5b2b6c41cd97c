import FFmpegCore

/// Builds the complete sample table (a regular moov) for a fragmented recording, so that a cleanly stopped
/// file is an ordinary QuickTime movie and not a fragmented one.
///
/// The sample tables themselves are kept compactly per track (SampleTable: ~4 bytes a sample, so an hour
/// costs a couple of MB, not the ~48 bytes a sample of FFmpeg's own index). Everything else in the moov
/// (movie and track headers, durations, edit lists, sample descriptions, sample groups) comes from FFmpeg's
/// mov muxer: at the end, a second muxer in its ordinary mode is given the first and last samples of each
/// track, with zero payloads through a CapturingOutputIO that keeps only its trailer, and that trailer's
/// tables are replaced by the complete ones.
final class MovieIndexBuilder {
    enum IndexError: Error, CustomStringConvertible {
        case mismatch(String)
        var description: String {
            switch self { case .mismatch(let what): return "cannot index the movie fragments: \(what)" }
        }
    }

    private let encoders: [Encoder]
    private let rotationDegrees: Int
    private let videoStream: Int?
    private let storedHeaders: [Int: [UInt8]]
    private let encoderTimeBases: [Rational]
    private let trackTimeBases: [Rational]
    /// Per stream, samples handed to the fragmented muxer and not yet found in a fragment on disk.
    private var pending: [[SampleTable.Sample]]
    private var pendingHeads: [Int]
    private var tables: [SampleTable]

    /// `storedHeaders`: per stream, the codec header as the fragmented file stores it. H.264 from x264 and
    /// HEVC from x265 come in Annex B form, which the muxer rewrites with length prefixes as it stores each
    /// sample; given the stored record (avcC, hvcC) instead, it takes samples as they are. `trackTimeBases`: the fragmented
    /// muxer's stream time bases (the tracks' timescales).
    init(encoders: [Encoder], rotationDegrees: Int, videoStream: Int?, storedHeaders: [Int: [UInt8]],
         trackTimeBases: [Rational]) {
        self.encoders = encoders
        self.rotationDegrees = rotationDegrees
        self.videoStream = videoStream
        self.storedHeaders = storedHeaders
        self.encoderTimeBases = encoders.map(\.timeBase)
        self.trackTimeBases = trackTimeBases
        pending = Array(repeating: [], count: encoders.count)
        pendingHeads = Array(repeating: 0, count: encoders.count)
        tables = Array(repeating: SampleTable(), count: encoders.count)
    }

    /// Notes a packet just handed to the fragmented muxer (timestamps in its encoder's time base).
    func notePending(stream: Int, pts: Int64, dts: Int64, duration: Int64, size: Int, isKeyframe: Bool, isDisposable: Bool) {
        pending[stream].append(SampleTable.Sample(pts: pts, dts: dts, duration: duration, size: size, isKeyframe: isKeyframe,
                                                  isDisposable: isDisposable))
    }

    /// Adds the samples of the fragments just written, at their real positions in the file and with the
    /// sizes stored there. `each` sees every sample in file order: its stream, its offset, and the sample in
    /// the track's and in the encoder's time base.
    func place(_ fragments: [MovieFragmentScanner.Fragment],
               each: (Int, Int64, SampleTable.Sample, SampleTable.Sample) -> Void) throws {
        for fragment in fragments {
            for run in fragment.runs {
                let stream = run.trackID - 1
                guard pending.indices.contains(stream) else { throw IndexError.mismatch("unknown track \(run.trackID)") }
                guard pendingHeads[stream] + run.sampleSizes.count <= pending[stream].count else {
                    throw IndexError.mismatch("track \(run.trackID) has more samples in the file than were written")
                }
                var position = run.dataStart
                for size in run.sampleSizes {
                    var encoded = pending[stream][pendingHeads[stream]]
                    pendingHeads[stream] += 1
                    encoded.size = size
                    let sample = inTrackTime(encoded, stream: stream)
                    try tables[stream].append(sample, encoded: encoded, at: position)
                    each(stream, position, sample, encoded)
                    position += Int64(size)
                }
            }
        }
        for stream in pending.indices where pendingHeads[stream] > 4096 || pendingHeads[stream] == pending[stream].count {
            pending[stream].removeFirst(pendingHeads[stream])
            pendingHeads[stream] = 0
        }
    }

    /// Samples noted but not yet found in a fragment on disk.
    var unplacedSamples: Int { pending.indices.reduce(0) { $0 + pending[$1].count - pendingHeads[$1] } }

    /// The complete moov for every placed sample.
    func finishIndex() throws -> [UInt8] {
        try rebuild(try skeletonMovie())
    }

    private func inTrackTime(_ sample: SampleTable.Sample, stream: Int) -> SampleTable.Sample {
        let from = encoderTimeBases[stream], to = trackTimeBases[stream]
        var converted = sample
        converted.pts = Timestamp(value: sample.pts, timeBase: from).rescaled(to: to).value
        converted.dts = Timestamp(value: sample.dts, timeBase: from).rescaled(to: to).value
        converted.duration = Timestamp(value: sample.duration, timeBase: from).rescaled(to: to).value
        return converted
    }

    /// FFmpeg's moov for the first and last samples of each track: right everywhere but in the tables.
    private func skeletonMovie() throws -> [UInt8] {
        let io = CapturingOutputIO()
        let output = try OutputContext(writingTo: io, formatName: "mov", name: "movie index")
        for encoder in encoders {
            try output.addStream(for: encoder, codecTag: CodecConfigurationRecord.sampleEntryTag(forCodec: encoder.codecIdentifier))
        }
        for (stream, header) in storedHeaders { try output.setExtradata(streamIndex: stream, header) }
        if let videoStream { try output.setRotation(streamIndex: videoStream, clockwiseDegrees: rotationDegrees) }
        try output.writeHeader()
        var zeros = [UInt8](repeating: 0, count: 1)
        let packet = Packet()
        for stream in tables.indices {
            for sample in tables[stream].endSamples {
                if zeros.count < sample.size { zeros = [UInt8](repeating: 0, count: sample.size) }
                try zeros.withUnsafeMutableBufferPointer { buffer in
                    // The muxer only needs the size and timing: its I/O discards the payload.
                    packet.borrow(buffer.baseAddress!, size: sample.size)
                    defer { packet.unref() }
                    packet.streamIndex = stream
                    packet.pts = sample.pts
                    packet.dts = sample.dts
                    packet.duration = sample.duration
                    // Not marked disposable: the complete table's sdtp is written with the others.
                    packet.setKeyframe(sample.isKeyframe)
                    try output.write(packet, interleaved: false)
                }
            }
        }
        io.flush()
        let end = io.position
        io.captureStart = end
        try output.finish()
        return io.captured
    }

    /// Copies the skeleton's boxes, replacing each track's sample tables with the complete ones.
    private func rebuild(_ skeleton: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(skeleton.count + tables.reduce(0) { $0 + $1.count * 6 } + 4096)
        var track = -1
        try copy(skeleton, 0 ..< skeleton.count, into: &out, track: &track)
        return out
    }

    private func copy(_ skeleton: [UInt8], _ range: Range<Int>, into out: inout [UInt8], track: inout Int) throws {
        for box in BoxReader.children(skeleton, from: range.lowerBound, to: range.upperBound) {
            let content = box.offset + 8 ..< box.offset + box.size
            switch box.type {
            case "trak":
                // The muxer leaves out tracks without samples, so tracks are matched by ID (stream index + 1).
                track = try trackID(skeleton, content) - 1
                try BoxWriter.box(box.type, into: &out) { try copy(skeleton, content, into: &$0, track: &track) }
            case "moov", "mdia", "minf":
                try BoxWriter.box(box.type, into: &out) { try copy(skeleton, content, into: &$0, track: &track) }
            case "stbl":
                guard tables.indices.contains(track) else { throw IndexError.mismatch("more tracks than streams") }
                let index = track
                try BoxWriter.box("stbl", into: &out) { try writeSampleTable(skeleton, content, track: index, into: &$0) }
            default:
                out += skeleton[box.offset ..< box.offset + box.size]
            }
        }
    }

    private func trackID(_ skeleton: [UInt8], _ trak: Range<Int>) throws -> Int {
        guard let header = BoxReader.children(skeleton, from: trak.lowerBound, to: trak.upperBound).first(where: { $0.type == "tkhd" }),
              header.size >= 32 else { throw IndexError.mismatch("a track without a header") }
        let version = skeleton[header.offset + 8]
        return Int(BoxReader.u32(skeleton, header.offset + (version == 1 ? 28 : 20)))
    }

    private func writeSampleTable(_ skeleton: [UInt8], _ range: Range<Int>, track: Int, into out: inout [UInt8]) throws {
        let table = tables[track]
        var description: [UInt8] = []
        var groupDescription: ArraySlice<UInt8> = []
        var rollGroupIndex: UInt32? = nil
        for box in BoxReader.children(skeleton, from: range.lowerBound, to: range.upperBound) {
            let whole = skeleton[box.offset ..< box.offset + box.size]
            switch box.type {
            case "stsd":
                description = Array(whole)
                if table.duration > 0 {
                    // An MPEG-4 audio description carries the track's average bit rate (movenc: all bytes over
                    // the track duration) and a maximum of at least that: the skeleton saw only some samples.
                    let timescale = Int64(trackTimeBases[track].denominator) / Int64(max(1, trackTimeBases[track].numerator))
                    let average = table.totalBytes * 8 * timescale / table.duration
                    ElementaryStreamDescriptor.setBitRates(in: &description, average: UInt32(clamping: average),
                                                           maximum: UInt32(clamping: max(average, encoders[track].bitRate)))
                }
            case "sgpd": groupDescription = whole
            case "sbgp":
                // One run mapping every sample to the roll group (AAC priming), as movenc writes it.
                guard box.size == 28 else { throw IndexError.mismatch("sample-to-group box with several runs") }
                rollGroupIndex = BoxReader.u32(skeleton, box.offset + 24)
            case "stts", "stss", "sdtp", "ctts", "stsc", "stsz", "stco", "co64": break
            default: throw IndexError.mismatch("unexpected table '\(box.type)' in the muxer's sample table")
            }
        }
        guard !description.isEmpty else { throw IndexError.mismatch("no sample description") }
        out += description
        table.writeBoxes(into: &out)
        out += groupDescription
        if let rollGroupIndex { table.writeRollGroupBox(index: rollGroupIndex, into: &out) }
    }
}

/// The MPEG-4 elementary stream descriptor (esds) inside a sample description.
enum ElementaryStreamDescriptor {
    /// Rewrites the bit rates of the DecoderConfigDescriptor, if the description has an esds.
    static func setBitRates(in description: inout [UInt8], average: UInt32, maximum: UInt32) {
        guard var at = BoxReader.firstOccurrence(of: "esds", in: description, from: 4) else { return }
        at += 8  // type, version and flags
        func skipTag(_ tag: UInt8) -> Bool {
            guard at < description.count, description[at] == tag else { return false }
            at += 1
            while at < description.count, description[at] & 0x80 != 0 { at += 1 }  // variable-length size
            at += 1
            return true
        }
        guard skipTag(0x03) else { return }
        at += 3  // ES_ID and flags (no dependency, URL or OCR stream in movenc's descriptors)
        guard skipTag(0x04), at + 13 <= description.count else { return }
        at += 5  // object type, stream type, buffer size
        BoxWriter.set(maximum, at: at, in: &description)
        BoxWriter.set(average, at: at + 4, in: &description)
    }
}

/// Walks the boxes of a byte array (sizes are 32-bit inside a moov).
enum BoxReader {
    static func children(_ bytes: [UInt8], from start: Int, to end: Int) -> [(type: String, offset: Int, size: Int)] {
        var result: [(type: String, offset: Int, size: Int)] = []
        var offset = start
        while offset + 8 <= end {
            let size = Int(u32(bytes, offset))
            guard size >= 8, offset + size <= end else { break }
            result.append((fourCC(bytes, offset + 4), offset, size))
            offset += size
        }
        return result
    }

    /// The four-character box type at `at`.
    static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
        String(decoding: bytes[at ..< at + 4], as: UTF8.self)
    }

    /// Where the four bytes of `type` first occur at or after `start` (a box type, found without walking).
    static func firstOccurrence(of type: String, in bytes: [UInt8], from start: Int) -> Int? {
        let pattern = Array(type.utf8)
        guard bytes.count >= 4 else { return nil }
        var at = start
        while at + 4 <= bytes.count {
            if bytes[at] == pattern[0] && bytes[at + 1] == pattern[1] && bytes[at + 2] == pattern[2] && bytes[at + 3] == pattern[3] {
                return at
            }
            at += 1
        }
        return nil
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
