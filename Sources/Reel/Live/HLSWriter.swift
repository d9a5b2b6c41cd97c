import FFmpegCore
import Glibc
import QuickTime
import SystemSupport

/// The files of one HLS stream in a folder: the init segment (`init.mp4`: ftyp + moov, from FFmpeg's mp4
/// muxer), media segments (`segmentN.m4s`: MediaFragment's boxes and the packets' payloads), for Low-Latency
/// HLS their parts (`partN.I.m4s`: a segment is its parts' fragments one after the other), and the media
/// playlist (`index.m3u8`). Every file is written under a hidden name and renamed into place, so a reader
/// never sees half of one; a segment is in place before the playlist names it, and deleted only once it has
/// been out of the playlist for as long as the playlist lasts (RFC 8216bis 6.2.2).
///
/// Times: each track's ticks (the movie's frame slots, audio samples) become its timescale in the init
/// segment, and the stream starts `timelineOffset` seconds in, so the first decode times (B-frames decode
/// ahead of the first picture, AAC's priming frame plays before it) are not negative and no edit list is
/// needed: the first picture and the first sound sample both present at exactly 10 s.
final class HLSWriter {
    static let playlistName = LiveStream.playlistName
    static let initName = "init.mp4"
    static let timelineOffset: Int64 = 10

    struct Track {
        var trackID: Int
        /// The packets' time base and the init segment's timescale for the track.
        var source: TimeBase
        var timescale: TimeBase
        var codec: Codec
        var offset: Int64 { Int64(timescale.denominator) * HLSWriter.timelineOffset / Int64(timescale.numerator) }

        func sample(_ sample: Sample) -> Sample {
            var converted = sample.converted(from: source, to: timescale)
            converted.decodeTime += offset
            return converted
        }
    }

    let folder: String
    private(set) var playlist: HLSPlaylist
    let video: Track?
    let audio: Track?
    private var fragmentSequence: UInt32 = 1
    private var nextNumber = 0
    /// Segments out of the playlist, kept for readers that loaded it before (deleted after `window` more).
    private var retired: [HLSPlaylist.Segment] = []
    private(set) var segmentsWritten = 0
    private(set) var partsWritten = 0
    /// Bytes of media segments (a low-latency stream's part files hold those bytes again, not counted).
    private(set) var bytesWritten: Int64 = 0
    /// Bits per second: the highest of any segment, and over all of them (a multivariant playlist's
    /// BANDWIDTH and AVERAGE-BANDWIDTH).
    private(set) var peakBitRate = 0
    private var mediaSeconds = 0.0
    var averageBitRate: Int? { mediaSeconds > 0 ? Int((Double(bytesWritten) * 8 / mediaSeconds).rounded(.up)) : nil }
    /// RFC 6381 strings of the tracks (video first), from the init segment.
    let codecs: [String]
    private var buffer: [UInt8] = []

    /// Writes the init segment for the encoders' streams and an empty playlist is not written yet (a player
    /// that finds no playlist retries; one that finds an empty live playlist may give up).
    init(folder: String, video: Encoder?, audio: Encoder?, segmentDuration: Double, frameDuration: Double,
         window: Int?, lowLatency: HLSPlaylist.LowLatency?) throws {
        self.folder = folder
        let bytes = try HLSWriter.initSegment(folder: folder, video: video, audio: audio)
        let scales = HLSWriter.timescales(inInit: bytes)
        codecs = CodecString.tracks(inInit: bytes).compactMap { $0 }
        guard scales.count == [video, audio].compactMap({ $0 }).count else {
            throw ReelError.runtime("the live stream's init segment in \(folder) has \(scales.count) tracks, not \([video, audio].compactMap { $0 }.count)")
        }
        var index = 0
        self.video = video.map { encoder in
            defer { index += 1 }
            return Track(trackID: index + 1, source: TimeBase(encoder.timeBase), timescale: TimeBase(timescale: scales[index]),
                         codec: Codec(encoder.codecIdentifier))
        }
        self.audio = audio.map { encoder in
            Track(trackID: index + 1, source: TimeBase(encoder.timeBase), timescale: TimeBase(timescale: scales[index]),
                  codec: Codec(encoder.codecIdentifier))
        }
        playlist = HLSPlaylist(mapURI: HLSWriter.initName,
                               targetDuration: HLSWriter.targetDuration(segmentDuration: segmentDuration, frameDuration: frameDuration),
                               window: window, lowLatency: lowLatency)
        try place(bytes, as: HLSWriter.initName)
    }

    /// EXT-X-TARGETDURATION: the longest segment (the duration, and up to a picture more where the duration
    /// falls between pictures), rounded to the nearest second as the spec rounds EXTINFs against it.
    static func targetDuration(segmentDuration: Double, frameDuration: Double) -> Int {
        max(1, Int((segmentDuration + frameDuration).rounded()))
    }

    /// Writes a piece (a whole segment, or a part of one) and lists it; `wallClock` is its first picture's
    /// time (ms since 1970). A low-latency stream writes each part as a file of its own and the playlist
    /// after each; the segment, its parts' fragments one after the other, once its last part is in.
    func write(_ piece: LiveSegmenter<Packet>.Piece, wallClock: Int64) throws {
        let tracks = [(video, piece.video), (audio, piece.audio)].compactMap { track, entries in
            track.flatMap { entries.isEmpty ? nil : ($0, entries) }
        }
        if !tracks.isEmpty {
            let fragment = try self.fragment(of: tracks)
            if piece.startsSegment || openSegment == nil { openSegment = OpenSegment(wallClock: wallClock, followsGap: piece.followsGap) }
            if playlist.lowLatency != nil {
                let (number, index) = (nextNumber, playlist.openParts.count)
                let name = HLSWriter.partName(segment: number, part: index)
                try place(fragment, as: name)
                partsWritten += 1
                playlist.appendPart(HLSPlaylist.Part(uri: name, duration: piece.duration, isIndependent: piece.isIndependent),
                                    segmentProgramDateTime: openSegment!.wallClock, followsGap: openSegment!.followsGap)
                playlist.preloadHint = HLSWriter.partName(segment: piece.endsSegment ? number + 1 : number, part: piece.endsSegment ? 0 : index + 1)
            }
            // A segment's first fragment is taken as it is (no copy: a whole segment without parts is one).
            if openSegment!.bytes.isEmpty { openSegment!.bytes = fragment } else { openSegment!.bytes += fragment }
            openSegment!.duration += piece.duration
            fragmentSequence += 1
        }
        if piece.endsSegment, let segment = openSegment {
            openSegment = nil
            try close(segment)
        } else if playlist.lowLatency != nil && !tracks.isEmpty && !playlist.segments.isEmpty {
            // Not before the first whole segment: a player that finds a playlist of parts alone may give up
            // (Chromium's does), one that finds none retries.
            try writePlaylist()
        }
    }

    /// The segment being written: its fragments so far, its length, and its first picture's time.
    private struct OpenSegment {
        var wallClock: Int64
        var followsGap: Bool
        var bytes: [UInt8] = []
        var duration = 0.0
    }
    private var openSegment: OpenSegment?

    /// A fragment (moof + mdat) of the tracks' packets: the payloads as stored (pictures length-prefixed) go
    /// after room for the header, which their sizes then fill in, so it is built in one buffer, each payload
    /// copied once.
    private func fragment(of tracks: [(Track, [LiveSegmenter<Packet>.Entry])]) throws -> [UInt8] {
        let headerSize = MediaFragment.headerSize(sampleCounts: tracks.map { $0.1.count })
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: repeatElement(0, count: headerSize))
        let described = tracks.map { track, entries in
            MediaFragment.Track(trackID: track.trackID, samples: entries.map { entry in
                var sample = track.sample(entry.sample)
                sample.size = entry.payload.withPayload { SamplePayload.append($0, codec: track.codec, to: &buffer) }
                return sample
            }, isVideo: track.trackID == video?.trackID)
        }
        let header = try MediaFragment.header(sequence: fragmentSequence, tracks: described)
        buffer.replaceSubrange(0..<headerSize, with: header)
        return buffer
    }

    /// Writes a whole segment and lists it; its parts leave the folder once they have been out of the
    /// playlist as long as the playlist lasts, the segment itself once it has.
    private func close(_ segment: OpenSegment) throws {
        let number = nextNumber
        let name = "segment\(number).m4s"
        try place(segment.bytes, as: name)
        nextNumber += 1
        segmentsWritten += 1
        bytesWritten += Int64(segment.bytes.count)
        mediaSeconds += segment.duration
        if segment.duration > 0 { peakBitRate = max(peakBitRate, Int((Double(segment.bytes.count) * 8 / segment.duration).rounded(.up))) }
        let left = playlist.append(HLSPlaylist.Segment(number: number, uri: name, duration: segment.duration,
                                                       programDateTime: segment.wallClock, followsGap: segment.followsGap,
                                                       parts: playlist.openParts))
        try writePlaylist()
        retired += left
        if let window = playlist.window, retired.count > window {
            for old in retired.prefix(retired.count - window) { unlink(folder + "/" + old.uri) }
            retired.removeFirst(retired.count - window)
        }
        segmentsWithParts.append(playlist.segments.last!)
        // Parts listed for three target durations, then kept as long again for players that loaded them.
        let keptWithParts = Int((Double(playlist.targetDuration * 6) / max(segment.duration, 0.001)).rounded(.up)) + 2
        while segmentsWithParts.count > keptWithParts {
            for part in segmentsWithParts.removeFirst().parts { unlink(folder + "/" + part.uri) }
        }
    }

    /// Segments whose part files are still in the folder, oldest first.
    private var segmentsWithParts: [HLSPlaylist.Segment] = []

    /// `partN.I.m4s`: part I (from 0) of segment N.
    static func partName(segment: Int, part: Int) -> String { "part\(segment).\(part).m4s" }

    /// The stream is over: the playlist says so (EXT-X-ENDLIST).
    func finish() throws {
        playlist.ended = true
        try writePlaylist()
    }

    private func writePlaylist() throws {
        try place(Array(playlist.text.utf8), as: HLSWriter.playlistName)
    }

    private func place(_ bytes: [UInt8], as name: String) throws { try HLSWriter.place(bytes, as: name, in: folder) }

    /// Writes `bytes` under a hidden name in the folder and renames it to `name` (no sync: a live stream's
    /// files are for readers now, and a sync per segment would stall on a busy disk).
    static func place(_ bytes: [UInt8], as name: String, in folder: String) throws {
        let hidden = folder + "/." + name + ".partial"
        if let problem = FileSystem.write(bytes, to: hidden) {
            unlink(hidden)
            throw ReelError.runtime("cannot write the live stream's \(name) in \(folder): \(problem)")
        }
        guard rename(hidden, folder + "/" + name) == 0 else {
            let problem = String(cString: strerror(errno))
            unlink(hidden)
            throw ReelError.runtime("cannot put the live stream's \(name) in place in \(folder): \(problem)")
        }
    }

    /// ftyp + moov (with mvex) for the encoders' streams, as FFmpeg's mp4 muxer writes them for fragments.
    private static func initSegment(folder: String, video: Encoder?, audio: Encoder?) throws -> [UInt8] {
        let path = folder + "/." + initName + ".muxer"
        defer { unlink(path) }
        let output = try OutputContext(path: path, formatName: "mp4")
        for encoder in [video, audio].compactMap({ $0 }) {
            try output.addStream(for: encoder, codecTag: CodecConfigurationRecord.sampleEntryTag(forCodec: Codec(encoder.codecIdentifier))?.description)
        }
        try output.writeHeader(options: [("movflags", "frag_custom+empty_moov+default_base_moof")])
        output.flush()
        output.abandon()
        do {
            let file = try FileDescriptor.opening("open") { open(path, O_RDONLY | O_CLOEXEC) }
            var info = stat()
            guard fstat(file.raw, &info) == 0 else { throw SystemError("fstat", code: errno) }
            return try FileBytes(descriptor: file.raw).read(at: 0, count: Int(info.st_size))
        } catch {
            throw ReelError.runtime("cannot read back the live stream's init segment in \(folder): \(error)")
        }
    }

    /// Each track's mdhd timescale, in track order.
    static func timescales(inInit bytes: [UInt8]) -> [Int32] {
        guard let moov = BoxReader.child("moov", of: bytes, in: 0..<bytes.count) else { return [] }
        return BoxReader.children(of: bytes, inside: moov).filter { $0.type == "trak" }.compactMap { trak in
            guard let mdhd = BoxReader.descendant(["mdia", "mdhd"], of: bytes, in: trak.contentRange) else { return nil }
            let body = mdhd.contentRange.lowerBound
            let version = bytes[body]
            let at = body + 4 + (version == 1 ? 16 : 8)
            return Int32(bitPattern: BigEndian.uint32(bytes, at: at))
        }
    }
}
