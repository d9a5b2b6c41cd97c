import Foundation
import QuickTime
import Testing

/// Random sample tables against FFmpeg: a movie is written here (random sizes, key and disposable flags,
/// B-frame reordering, variable durations, delays, samples past 1 MiB chunks, durations past 32 bits) with
/// this module's index, the ffmpeg CLI remuxes it with its own mov muxer, and then
/// - FFmpeg read back every sample with the times and flags written (our index says what it meant to),
/// - the index built here for FFmpeg's copy (from its fragmented header, at its offsets) is FFmpeg's, byte
///   for byte,
/// - the trailer bound for FFmpeg's copy is never below its moov, and within `KnownMovie.boundSlack` above it.
@Suite struct RandomTableTests {
    enum Shape: String, CaseIterable, Sendable {
        case bFrames, disposable, delayedAudio, largeSamples, veryLong

        /// The streams: H.264 and AAC; HEVC alone for disposable pictures (FFmpeg's H.264 parser drops the
        /// disposable flag the demuxer reads from sdtp, so a copy of an H.264 track has no sdtp).
        var fixture: String { self == .disposable ? "hevc-rotated" : "h264-aac" }
    }

    /// Video in 1/15360 (the muxer's timescale for 30 fps), audio in 1/48000 (none with an HEVC template),
    /// both in decode order.
    struct RandomMovie {
        var video: [Sample] = []
        var audio: [Sample] = []

        init(_ shape: Shape, seed: UInt64) {
            var random = SplitMix64(seed: seed)
            switch shape {
            case .bFrames, .disposable:
                // x264's order with two B-frames: I0 P3 B1 B2 P6 B4 B5 ..., decode times from -1024.
                let groups = Int(random.next(in: 40 ... 80))
                for index in 0 ... 3 * groups {
                    let position = (index - 1) % 3
                    let frame = index == 0 ? 0 : 3 * ((index - 1) / 3) + (position == 0 ? 3 : position)
                    let isKeyframe = frame % 30 == 0
                    video.append(Sample(decodeTime: Int64(index - 2) * 512, presentationOffset: Int64(frame - index + 2) * 512,
                                        duration: 512, size: Int(isKeyframe ? random.next(in: 5000 ... 20000) : random.next(in: 200 ... 6000)),
                                        isKeyframe: isKeyframe,
                                        isDisposable: shape == .disposable && index > 0 && position != 0 && random.next(in: 0 ... 9) < 7))
                }
                if shape == .bFrames { audio = RandomMovie.audio(seconds: Double(video.count) / 30, start: -1024, random: &random) }
            case .delayedAudio:
                // Variable frame durations, no reordering; the audio starts half a second in (an empty edit).
                var time: Int64 = 0
                for index in 0 ..< Int(random.next(in: 60 ... 150)) {
                    let duration = [512, 512, 512, 1024, 768][Int(random.next(in: 0 ... 4))]
                    video.append(Sample(decodeTime: time, duration: Int64(duration), size: Int(random.next(in: 300 ... 9000)),
                                        isKeyframe: index % 25 == 0))
                    time += Int64(duration)
                }
                audio = RandomMovie.audio(seconds: Double(time) / 15360 - 0.5, start: 24000, random: &random)
            case .largeSamples:
                // Video alone, in samples large enough that the muxer's 1 MiB chunks split runs of them.
                for index in 0 ..< 24 {
                    video.append(Sample(decodeTime: Int64(index) * 512, duration: 512, size: Int(random.next(in: 150_000 ... 600_000)),
                                        isKeyframe: index % 8 == 0))
                }
            case .veryLong:
                // Samples lasting 39 hours (video) and 12 hours (audio): 64 days, past 32 bits in every header and
                // edit list (version 1 boxes).
                var time: Int64 = 0
                for index in 0 ..< 36 {
                    let duration = Int64(Int32.max) - Int64(random.next(in: 0 ... 1000))
                    video.append(Sample(decodeTime: time, duration: duration, size: Int(random.next(in: 100 ... 2000)),
                                        isKeyframe: index % 6 == 0))
                    time += duration
                }
                var audioTime: Int64 = 0
                while audioTime < time * 48000 / 15360 {
                    let duration = Int64(Int32.max) - Int64(random.next(in: 0 ... 1000))
                    audio.append(Sample(decodeTime: audioTime, duration: duration, size: Int(random.next(in: 100 ... 400)), isKeyframe: true))
                    audioTime += duration
                }
            }
        }

        /// AAC-like frames of 1024 samples from `start` (-1024: the encoder's priming), the last one shorter.
        private static func audio(seconds: Double, start: Int64, random: inout SplitMix64) -> [Sample] {
            let count = Int((seconds * 48000 / 1024).rounded(.up)) + 1
            return (0 ..< count).map { index in
                Sample(decodeTime: start + Int64(index) * 1024, duration: index == count - 1 ? Int64(random.next(in: 100 ... 1024)) : 1024,
                       size: Int(random.next(in: 100 ... 400)), isKeyframe: true)
            }
        }

        var tracks: [[Sample]] { audio.isEmpty ? [video] : [video, audio] }

        /// A video sample's payload: one NAL unit behind a 4-byte length (the record's length size) whose header
        /// and slice header tell FFmpeg's H.264 parser what the flags say (it sets a demuxed packet's key flag
        /// from them): an IDR I slice, a P slice, or a B slice no picture refers to; zeros after.
        static func picture(_ sample: Sample) -> [UInt8] {
            let (header, slice): (UInt8, [UInt8]) = sample.isKeyframe ? (0x65, [0x88, 0x80])  // first_mb 0, slice_type 7, pps 0
                : sample.isDisposable ? (0x01, [0x9E]) : (0x41, [0x9A])                   // slice_type 6 (B) or 5 (P)
            var bytes: [UInt8] = []
            BigEndian.append(UInt32(sample.size - 4), to: &bytes)
            bytes += [header] + slice
            return bytes + [UInt8](repeating: 0, count: sample.size - bytes.count)
        }

        /// ftyp, one mdat with the samples interleaved by decode time, and the moov this module builds for
        /// them from `template` (a fragmented header with a video track, and an audio track when there is audio:
        /// a template track without samples is left out).
        func file(template: MovieBoxTemplate, tracks descriptions: [TrackDescription]) throws -> [UInt8] {
            var bytes: [UInt8] = []
            BoxWriter.box("ftyp", into: &bytes) { $0 += Array("qt  ".utf8) + [0, 0, 2, 0] + Array("qt  ".utf8) }
            let tracks = self.tracks + Array(repeating: [], count: descriptions.count - self.tracks.count)
            let order = tracks.enumerated().flatMap { track, samples in samples.indices.map { (track, $0) } }.sorted {
                let left = Double(tracks[$0.0][$0.1].decodeTime) * descriptions[$0.0].timeBase.secondsPerTick
                let right = Double(tracks[$1.0][$1.1].decodeTime) * descriptions[$1.0].timeBase.secondsPerTick
                return left != right ? left < right : $0.0 < $1.0
            }
            let payload = order.reduce(0) { $0 + tracks[$1.0][$1.1].size }
            var builder = try MovieIndexBuilder(template: template, tracks: descriptions)
            var runs: [MovieFragmentScanner.Run] = []
            var offset = Int64(bytes.count + 8)
            for (track, index) in order {
                let sample = tracks[track][index]
                builder.notePending(track: track, sample)
                runs.append(.init(trackID: track + 1, dataStart: offset, sampleSizes: [sample.size]))
                offset += Int64(sample.size)
            }
            try builder.place([.init(moofOffset: 0, runs: runs)]) { _, _ in }
            bytes += BoxHeader(type: "mdat", size: Int64(8 + payload)).encoded()
            for (track, index) in order {
                let sample = tracks[track][index]
                bytes += descriptions[track].codec == .h264 ? RandomMovie.picture(sample) : [UInt8](repeating: 0, count: sample.size)
            }
            return bytes + builder.finishIndex()
        }
    }

    /// FFmpeg's copy of `path`: its moov, the moov it writes at the start of a fragmented copy, and its
    /// samples as ffprobe reads them (the disposable flags, which ffprobe does not print, from `written`).
    private func ffmpegCopy(of path: String, in folder: URL, written: [[Sample]]) throws -> KnownMovie {
        let regular = folder.appendingPathComponent("theirs.mov").path
        let fragmented = folder.appendingPathComponent("theirs-fragmented.mov").path
        try CommandLineTool.run("ffmpeg", ["-v", "error", "-y", "-copyts", "-i", path, "-map", "0", "-c", "copy", "-f", "mov", regular])
        try CommandLineTool.run("ffmpeg", ["-v", "error", "-y", "-copyts", "-i", path, "-map", "0", "-c", "copy", "-f", "mov",
                                           "-movflags", "frag_custom+empty_moov+skip_trailer", fragmented])
        let packets = try CommandLineTool.run("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,dts,pts,duration,size,pos,flags",
                                                           "-of", "csv=p=0", regular])
        var seen = [0, 0]
        let samples = packets.split(separator: "\n").map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return (fields: fields, offset: Int64(fields[5]) ?? 0)
        }.sorted { $0.offset < $1.offset }.map { row in
            let track = Int(row.fields[0]) ?? 0
            defer { seen[track] += 1 }
            let disposable = written[track].indices.contains(seen[track]) && written[track][seen[track]].isDisposable
            // ffprobe prints pts before dts whatever the order asked for.
            let fields = row.fields
            return KnownMovie.placement([fields[0], fields[2], fields[1]] + fields[3...], disposable: disposable)
        }
        func moov(_ path: String) throws -> [UInt8] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let box = try #require(BoxReader.child("moov", of: bytes, in: 0 ..< bytes.count))
            return Array(bytes[box.range])
        }
        return KnownMovie(template: try moov(fragmented), regular: try moov(regular), samples: samples)
    }

    @Test(arguments: Shape.allCases)
    func randomTablesAgainstFFmpeg(shape: Shape) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quicktime-\(shape)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = try KnownMovie.fixture(shape.fixture)
        let seed = UInt64(Shape.allCases.firstIndex(of: shape)! + 1) * 0x9E37_79B9
        let movie = RandomMovie(shape, seed: seed)
        let ours = folder.appendingPathComponent("ours.mov").path
        try Data(try movie.file(template: MovieBoxTemplate(fixture.template), tracks: fixture.tracks())).write(to: URL(fileURLWithPath: ours))

        let theirs = try ffmpegCopy(of: ours, in: folder, written: movie.tracks)
        // FFmpeg read every sample back as it was written.
        for (track, written) in movie.tracks.enumerated() {
            let read = theirs.samples.filter { $0.track == track }.map(\.sample)
            #expect(read.map(\.decodeTime) == written.map(\.decodeTime), "\(shape) track \(track): decode times")
            #expect(read.map(\.presentationTime) == written.map(\.presentationTime), "\(shape) track \(track): presentation times")
            #expect(read.map(\.size) == written.map(\.size) && read.map(\.isKeyframe) == written.map(\.isKeyframe), "\(shape) track \(track)")
            // Durations too, but the last sample's: FFmpeg's demuxer ends it where the edit list does, which
            // the muxer rounds to the movie's milliseconds (and after an empty edit, it drops it).
            #expect(read.dropLast().map(\.duration) == written.dropLast().map(\.duration), "\(shape) track \(track): durations")
            #expect((read.last?.duration ?? 0) <= (written.last?.duration ?? 0), "\(shape) track \(track): last duration")
        }
        let index = try theirs.index()
        #expect(index == theirs.regular, "\(shape) (seed \(seed)): \(KnownMovie.differences(index, theirs.regular))")
        let bound = try theirs.bound()
        #expect(bound >= theirs.regular.count, "\(shape): bound \(bound) below FFmpeg's moov \(theirs.regular.count)")
        #expect(bound - theirs.regular.count <= KnownMovie.boundSlack, "\(shape): bound \(bound) loose against \(theirs.regular.count)")
    }
}

/// A small seeded generator (SplitMix64), so a failing table can be made again.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(in range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}
