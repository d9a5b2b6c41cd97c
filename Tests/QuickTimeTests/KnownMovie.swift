import Foundation
import QuickTime
import Testing

/// A movie's index and samples as FFmpeg wrote and reads them: a checked-in fixture (Fixtures/, made by
/// make-fixtures.sh), or one made in a test with the ffmpeg CLI.
struct KnownMovie {
    /// The moov FFmpeg's muxer writes at the start of a fragmented movie with these streams.
    var template: [UInt8]
    /// The movie's own moov: FFmpeg's complete index.
    var regular: [UInt8]
    /// Every sample in file order, times in its track's timescale.
    var samples: [SamplePlacement]

    /// What the trailer bound may exceed the real moov by: the fixed parts of movenc's boxes are counted with
    /// room for what FFmpeg writes in some movies only (a second edit, 64-bit headers past 24 days, a longer
    /// compressor name). Measured: 98–172 bytes on the fixtures and random tables, 72 past 32-bit durations.
    static let boundSlack = 200

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> KnownMovie {
        let folder = fixtures.appendingPathComponent(name)
        func bytes(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: folder.appendingPathComponent(file))) }
        let text = try String(contentsOf: folder.appendingPathComponent("samples.csv"), encoding: .utf8)
        return KnownMovie(template: try bytes("template.moov"), regular: try bytes("regular.moov"),
                          samples: text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
                              let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                              return placement(fields, disposable: fields[6].contains("D"))
                          })
    }

    /// A sample from ffprobe's `stream_index,dts,pts,duration,size,pos,flags` (the order of make-fixtures.sh).
    static func placement(_ fields: [String], disposable: Bool) -> SamplePlacement {
        let number = { (index: Int) in Int64(fields[index]) ?? 0 }
        return SamplePlacement(track: Int(number(0)), offset: number(5), sample: Sample(
            decodeTime: number(1), presentationOffset: number(2) - number(1), duration: number(3), size: Int(number(4)),
            isKeyframe: fields[6].hasPrefix("K"), isDisposable: disposable))
    }

    /// The tracks as the template describes them, samples timed in each track's timescale: the codec from
    /// the sample entry, and the stored codec header (avcC, hvcC, or the AudioSpecificConfig in the esds).
    func tracks() throws -> [TrackDescription] {
        let template = try MovieBoxTemplate(self.template)
        return template.tracks.sorted { $0.id < $1.id }.map { track in
            let stsd = BoxReader.descendant(["mdia", "minf", "stbl", "stsd"], of: self.template, in: track.box.contentRange)!
            let entry = FourCC(self.template, at: stsd.contentRange.lowerBound + 12)
            let timeBase = TimeBase(timescale: track.timescale)
            switch entry {
            case "avc1", "hvc1", "hev1":
                let recordType: FourCC = entry == "avc1" ? "avcC" : "hvcC"
                let at = BoxReader.firstOccurrence(of: recordType, in: self.template, from: stsd.offset)!
                let record = Array(self.template[at + 4 ..< at - 4 + Int(BigEndian.uint32(self.template, at: at - 4))])
                return TrackDescription(media: .video(width: 0, height: 0), codec: entry == "avc1" ? .h264 : .hevc,
                                        timeBase: timeBase, extradata: record)
            default:
                return TrackDescription(media: .audio(sampleRate: Int(track.timescale), channels: 0), codec: entry == "mp4a" ? .aac : Codec(entry.description),
                                        timeBase: timeBase, extradata: audioSpecificConfig(in: Array(self.template[stsd.range])))
            }
        }
    }

    /// The DecoderSpecificInfo (tag 5) inside an esds.
    private func audioSpecificConfig(in description: [UInt8]) -> [UInt8] {
        guard var at = BoxReader.firstOccurrence(of: "esds", in: description, from: 0) else { return [] }
        at += 8
        while at < description.count {
            let tag = description[at]
            at += 1
            var size = 0
            while at < description.count {
                size = size << 7 | Int(description[at] & 0x7F)
                at += 1
                if description[at - 1] & 0x80 == 0 { break }
            }
            switch tag {
            case 0x03: at += 3                     // ES_ID, flags; the descriptors inside follow
            case 0x04: at += 13                    // the decoder config's fields; then its DecoderSpecificInfo
            case 0x05: return Array(description[at ..< min(description.count, at + size)])
            default: at += size
            }
        }
        return []
    }

    /// Our index for these samples, built from the template.
    func index() throws -> [UInt8] {
        var builder = try MovieIndexBuilder(template: MovieBoxTemplate(template), tracks: tracks())
        for placement in samples { builder.notePending(track: placement.track, placement.sample) }
        // Each sample its own run, in file order (a fragment's runs are samples back to back).
        let runs = samples.map { MovieFragmentScanner.Run(trackID: $0.track + 1, dataStart: $0.offset, sampleSizes: [$0.sample.size]) }
        try builder.place([MovieFragmentScanner.Fragment(moofOffset: 0, runs: runs)]) { _, _ in }
        #expect(builder.unplacedSamples == 0)
        return builder.finishIndex()
    }

    /// The trailer bound for these samples, fed in file order.
    func bound() throws -> Int {
        var estimator = TrailerSizeEstimator(tracks: try tracks())
        for placement in samples.sorted(by: { $0.offset < $1.offset }) { estimator.record(placement) }
        return estimator.bound
    }

    /// The boxes of two moovs that differ, by path: what a failed comparison reports.
    static func differences(_ ours: [UInt8], _ theirs: [UInt8]) -> [String] {
        func leaves(_ bytes: [UInt8], _ range: Range<Int>, _ prefix: String) -> [(String, ArraySlice<UInt8>)] {
            BoxReader.children(of: bytes, in: range).flatMap { box -> [(String, ArraySlice<UInt8>)] in
                let path = prefix + box.type.description
                let containers: Set<FourCC> = ["moov", "trak", "edts", "mdia", "minf", "stbl", "dinf", "udta"]
                return containers.contains(box.type) ? leaves(bytes, box.contentRange, path + "/") : [(path, bytes[box.range])]
            }
        }
        let mine = leaves(ours, 0 ..< ours.count, ""), others = leaves(theirs, 0 ..< theirs.count, "")
        guard mine.map(\.0) == others.map(\.0) else { return ["boxes \(mine.map(\.0)) against \(others.map(\.0))"] }
        return zip(mine, others).filter { $0.1 != $1.1 }.map { "\($0.0): \(Array($0.1)) against \(Array($1.1))" }
    }
}
