import FoundationEssentials

/// An HLS media playlist (RFC 8216bis 4.4) of fMP4 segments, as a value: the segments it lists, how many it
/// keeps, and its text. Pure: `HLSPlaylistTests` check the text, `HLSPlaylistCheck` reads it back.
struct HLSPlaylist: Equatable {
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

    init(mapURI: String, targetDuration: Int, window: Int?) {
        self.mapURI = mapURI
        self.targetDuration = targetDuration
        self.window = window
    }

    /// Adds the newest segment; returns those that left the window.
    @discardableResult
    mutating func append(_ segment: Segment) -> [Segment] {
        segments.append(segment)
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
        lines.append("#EXT-X-MAP:URI=\"\(mapURI)\"")
        for segment in segments {
            if segment.followsGap { lines.append("#EXT-X-DISCONTINUITY") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(HLSPlaylist.dateTime(milliseconds: segment.programDateTime))")
            lines.append("#EXTINF:\(HLSPlaylist.seconds(segment.duration)),")
            lines.append(segment.uri)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
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
