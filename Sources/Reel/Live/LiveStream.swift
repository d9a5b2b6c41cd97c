import FoundationEssentials

/// A live stream of the recording (`--live DIR`): HLS with fMP4 segments in a folder that any web server can
/// serve, from the main movie's encoders (no second encode). Its media segments are exact to the picture
/// (the movie forces a keyframe at each boundary) and start with an IDR; the playlist keeps a sliding window
/// of the newest segments, or the whole event.
public struct LiveStream: Sendable, Equatable {
    /// The folder the playlist (index.m3u8), init segment and media segments go to; created when missing.
    public var folder: String
    /// Seconds of media per segment (Apple's HLS authoring spec: 6).
    public var segmentDuration: Double
    /// Segments the playlist lists; nil keeps the whole event (EXT-X-PLAYLIST-TYPE:EVENT).
    public var window: Int?

    public static let defaultSegmentDuration: Double = 6
    /// A segment holds at least a second; Apple's players buffer three target durations behind the edge.
    public static let segmentDurationRange: ClosedRange<Double> = 1...30
    /// Apple's authoring spec: a live playlist lists at least six segments.
    public static let defaultWindow = 6
    public static let windowRange: ClosedRange<Int> = 6...100_000

    public init(folder: String, segmentDuration: Double = LiveStream.defaultSegmentDuration,
                window: Int? = LiveStream.defaultWindow) {
        self.folder = folder
        self.segmentDuration = segmentDuration
        self.window = window
    }

    /// Parses a `--live` value: a folder. Servers (srt://, rtmp://) are named as not supported yet.
    public static func destination(_ text: String) throws -> String {
        if let scheme = ["srt://", "rtmp://", "rtmps://", "http://", "https://"].first(where: { text.lowercased().hasPrefix($0) }) {
            throw ReelError.invalidInput("--live \(text): pushing to \(scheme) servers is not built yet; give a folder for HLS (--live DIR)")
        }
        guard !text.isEmpty else { throw ReelError.invalidInput("--live needs a folder for the HLS stream") }
        return text
    }

    /// Rejects settings that cannot work before anything is written.
    package func validate() throws {
        if !LiveStream.segmentDurationRange.contains(segmentDuration) {
            throw ReelError.invalidInput("live segment duration \(NumberText.plain(segmentDuration)) s is out of range: use \(NumberText.plain(LiveStream.segmentDurationRange.lowerBound)) to \(NumberText.plain(LiveStream.segmentDurationRange.upperBound)) seconds")
        }
        if let window, !LiveStream.windowRange.contains(window) {
            throw ReelError.invalidInput("--live-keep \(window): a live playlist lists at least \(LiveStream.windowRange.lowerBound) segments (or 'all')")
        }
    }
}

/// What a live stream made, in the recording's result (`live` in `--json`).
public struct LiveResult: Sendable, Codable, Equatable {
    public var kind: String
    /// The playlist (DIR/index.m3u8).
    public var playlist: String
    /// Media segments written, and how many the playlist lists at the end.
    public var segments: Int
    public var listedSegments: Int
    public var bytes: Int64
    /// Seconds of media the segments hold (the sum of every EXTINF written).
    public var duration: Double
    /// Packets the stream dropped because it fell behind (its folder's disk stalled), and the gaps that made.
    public var droppedPackets: Int
    public var gaps: Int
    /// Why the stream stopped before the movie did (its folder failed); the movie is not affected.
    public var error: String?
}
