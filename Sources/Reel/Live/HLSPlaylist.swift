import FoundationEssentials

/// An HLS media playlist (RFC 8216bis 4.4) of fMP4 segments, as a value: the segments it lists, how many it
/// keeps, and its text; for Low-Latency HLS also their partial segments (EXT-X-PART) for the last three
/// target durations, the parts of the segment being written, and the next part as a preload hint. Pure:
/// `HLSPlaylistTests` check the text, `HLSPlaylistCheck` reads it back.
struct HLSPlaylist: Equatable {
    /// A partial segment (EXT-X-PART).
    struct Part: Equatable {
        var uri: String
        var duration: Double
        /// It starts with a keyframe (INDEPENDENT=YES).
        var isIndependent: Bool
    }

    struct Segment: Equatable {
        /// The media sequence number (from 0).
        var number: Int
        var uri: String
        /// Seconds, exact to the picture (the EXTINF).
        var duration: Double
        /// Wall-clock time of its first picture, in milliseconds since 1970 (EXT-X-PROGRAM-DATE-TIME).
        var programDateTime: Int64
        /// Packets were lost before it (the live output fell behind): EXT-X-DISCONTINUITY.
        var followsGap: Bool = false
        /// Its parts, in a low-latency playlist.
        var parts: [Part] = []
    }

    /// Low-Latency HLS: the part target (EXT-X-PART-INF) and whether the server answers blocking reloads.
    struct LowLatency: Equatable {
        var partTarget: Double
        /// CAN-BLOCK-RELOAD=YES: only a server that holds `_HLS_msn` requests may say so (`reel serve` adds it
        /// to the playlist it serves; a plain web server cannot).
        var canBlockReload = false
        /// PART-HOLD-BACK: how far behind the live edge a player stays (three part targets as written, Apple's
        /// least).
        var partHoldBack: Double { Double(HLSPlaylist.seconds(Double(HLSPlaylist.seconds(partTarget))! * 3))! }
    }

    /// The init segment (EXT-X-MAP).
    var mapURI: String
    /// EXT-X-TARGETDURATION: no EXTINF rounds above it.
    var targetDuration: Int
    /// Segments listed at most (a live sliding window); nil lists the whole event (EXT-X-PLAYLIST-TYPE:EVENT).
    var window: Int?
    private(set) var segments: [Segment] = []
    /// Discontinuities that left the window (EXT-X-DISCONTINUITY-SEQUENCE).
    private(set) var discontinuitySequence = 0
    /// EXT-X-ENDLIST: the stream is over.
    var ended = false
    var lowLatency: LowLatency?
    /// The segment being written, in a low-latency playlist: its parts so far, its start's date and gap.
    private(set) var openParts: [Part] = []
    var openSegment: (programDateTime: Int64, followsGap: Bool)? = nil
    /// The next part's URI (EXT-X-PRELOAD-HINT), while the stream goes on.
    var preloadHint: String?

    init(mapURI: String, targetDuration: Int, window: Int?, lowLatency: LowLatency? = nil) {
        self.mapURI = mapURI
        self.targetDuration = targetDuration
        self.window = window
        self.lowLatency = lowLatency
    }

    static func == (left: HLSPlaylist, right: HLSPlaylist) -> Bool { left.text == right.text }

    /// A part of the segment being written (low latency).
    mutating func appendPart(_ part: Part, segmentProgramDateTime: Int64, followsGap: Bool) {
        if openParts.isEmpty { openSegment = (segmentProgramDateTime, followsGap) }
        openParts.append(part)
    }

    /// Adds the newest segment; returns those that left the window.
    @discardableResult
    mutating func append(_ segment: Segment) -> [Segment] {
        segments.append(segment)
        openParts.removeAll()
        openSegment = nil
        guard let window, segments.count > window else { return [] }
        let leaving = Array(segments.prefix(segments.count - window))
        segments.removeFirst(leaving.count)
        discontinuitySequence += leaving.filter(\.followsGap).count
        return leaving
    }

    var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(targetDuration)",
                     "#EXT-X-MEDIA-SEQUENCE:\(segments.first?.number ?? 0)"]
        if discontinuitySequence > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)") }
        if window == nil { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        if let lowLatency {
            lines.append("#EXT-X-SERVER-CONTROL:" + (lowLatency.canBlockReload ? "CAN-BLOCK-RELOAD=YES," : "")
                         + "PART-HOLD-BACK=\(HLSPlaylist.seconds(lowLatency.partHoldBack))")
            lines.append("#EXT-X-PART-INF:PART-TARGET=\(HLSPlaylist.seconds(lowLatency.partTarget))")
        }
        lines.append("#EXT-X-MAP:URI=\"\(mapURI)\"")
        let listsPartsFrom = firstSegmentListingParts
        for (index, segment) in segments.enumerated() {
            if segment.followsGap { lines.append("#EXT-X-DISCONTINUITY") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(HLSPlaylist.dateTime(milliseconds: segment.programDateTime))")
            if index >= listsPartsFrom { lines += segment.parts.map(HLSPlaylist.partLine) }
            lines.append("#EXTINF:\(HLSPlaylist.seconds(segment.duration)),")
            lines.append(segment.uri)
        }
        if let openSegment, !openParts.isEmpty {
            if openSegment.followsGap { lines.append("#EXT-X-DISCONTINUITY") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(HLSPlaylist.dateTime(milliseconds: openSegment.programDateTime))")
            lines += openParts.map(HLSPlaylist.partLine)
        }
        if ended {
            lines.append("#EXT-X-ENDLIST")
        } else if lowLatency != nil, let preloadHint {
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(preloadHint)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parts are listed for the segments within three target durations of the playlist's end (RFC 8216bis
    /// 4.4.4.9: older ones' parts should go), and always for the segment being written.
    private var firstSegmentListingParts: Int {
        guard lowLatency != nil else { return segments.count }
        var index = segments.count
        var seconds = openParts.reduce(0) { $0 + $1.duration }
        while index > 0, seconds < Double(targetDuration * 3) {
            index -= 1
            seconds += segments[index].duration
        }
        return index
    }

    private static func partLine(_ part: Part) -> String {
        "#EXT-X-PART:DURATION=\(seconds(part.duration)),URI=\"\(part.uri)\"" + (part.isIndependent ? ",INDEPENDENT=YES" : "")
    }

    /// Six decimals: a frame at any rate is exact to a microsecond, so a thousand segments' EXTINFs add up
    /// to the stream's length within a millisecond.
    static func seconds(_ value: Double) -> String { NumberText.fixed(value, decimals: 6) }

    /// ISO 8601 in UTC with milliseconds ("2026-12-02T03:40:00.000Z").
    static func dateTime(milliseconds: Int64) -> String {
        let (seconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let milli = String(millis)
        return LocalTime.formatUTC("%Y-%m-%dT%H:%M:%S", seconds: Int(seconds)) + "."
            + String(repeating: "0", count: 3 - milli.count) + milli + "Z"
    }
}
