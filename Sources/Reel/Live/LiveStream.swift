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
    /// Low-Latency HLS: seconds of media per partial segment (EXT-X-PART, rounded to whole pictures), each
    /// listed as soon as it is written; nil writes whole segments only.
    public var partDuration: Double?

    /// The media playlist's name in the folder.
    public static let playlistName = "index.m3u8"
    public static let defaultSegmentDuration: Double = 6
    /// A segment holds at least a second; Apple's players buffer three target durations behind the edge.
    public static let segmentDurationRange: ClosedRange<Double> = 1...30
    /// Apple's authoring spec: a live playlist lists at least six segments.
    public static let defaultWindow = 6
    public static let windowRange: ClosedRange<Int> = 6...100_000
    /// Apple's LL-HLS parts are about a third of a second to a second; half a second keeps a player following
    /// the live edge (three parts behind it) within about two seconds of the camera.
    public static let defaultPartDuration: Double = 0.5
    /// Segments of a low-latency stream: its playlist appears with its first whole segment (a player that
    /// reads no parts gives up on a playlist of parts alone), so viewers can start after 2 s, not 6.
    public static let defaultLowLatencySegmentDuration: Double = 2
    public static let partDurationRange: ClosedRange<Double> = 0.2...2

    public init(folder: String, segmentDuration: Double = LiveStream.defaultSegmentDuration,
                window: Int? = LiveStream.defaultWindow, partDuration: Double? = nil) {
        self.folder = folder
        self.segmentDuration = segmentDuration
        self.window = window
        self.partDuration = partDuration
    }

    /// Parses a `--live` value: a folder for HLS, or a server to push to (srt://, rtmp://).
    public static func destination(_ text: String) throws -> LiveDestination {
        guard !text.isEmpty else { throw ReelError.invalidInput("--live needs a folder for an HLS stream, or srt://HOST:PORT or rtmp://HOST/APP/KEY") }
        if let scheme = text.firstRange(of: "://").map({ text[..<$0.lowerBound].lowercased() }), scheme.allSatisfy({ $0.isLetter || $0 == "+" }) {
            guard ["srt", "rtmp"].contains(scheme) else {
                throw ReelError.invalidInput("--live \(LivePush.hidingSecrets(text)): Reel pushes to srt:// and rtmp:// servers; give one of those, or a folder for HLS (--live DIR)")
            }
            return .server(try LivePush(url: text))
        }
        return .folder(text)
    }

    /// Rejects settings that cannot work before anything is written.
    package func validate() throws {
        if !LiveStream.segmentDurationRange.contains(segmentDuration) {
            throw ReelError.invalidInput("live segment duration \(NumberText.plain(segmentDuration)) s is out of range: use \(NumberText.plain(LiveStream.segmentDurationRange.lowerBound)) to \(NumberText.plain(LiveStream.segmentDurationRange.upperBound)) seconds")
        }
        if let partDuration {
            guard LiveStream.partDurationRange.contains(partDuration) else {
                throw ReelError.invalidInput("live part duration \(NumberText.plain(partDuration)) s is out of range: use \(NumberText.plain(LiveStream.partDurationRange.lowerBound)) to \(NumberText.plain(LiveStream.partDurationRange.upperBound)) seconds")
            }
            guard partDuration * 2 <= segmentDuration else {
                throw ReelError.invalidInput("live parts of \(NumberText.plain(partDuration)) s do not fit a \(NumberText.plain(segmentDuration)) s segment twice: use longer segments or shorter parts")
            }
        }
        if let window, !LiveStream.windowRange.contains(window) {
            throw ReelError.invalidInput("--live-keep \(window): a live playlist lists at least \(LiveStream.windowRange.lowerBound) segments (or 'all')")
        }
    }
}

/// Where a `--live` value sends the stream.
public enum LiveDestination: Sendable, Equatable {
    case folder(String)
    case server(LivePush)
}

/// What a live stream made, in the recording's result (`live` in `--json`).
public struct LiveResult: Sendable, Codable, Equatable {
    /// hls, srt or rtmp.
    public var kind: String
    /// An HLS stream's playlist (DIR/index.m3u8).
    public var playlist: String?
    /// A pushed stream's server, its stream key and passphrase hidden.
    public var url: String? = nil
    /// Media segments written, and how many the playlist lists at the end (HLS).
    public var segments: Int
    public var listedSegments: Int
    /// Partial segments written (Low-Latency HLS).
    public var parts: Int? = nil
    /// Bytes written (HLS) or sent to the server (a push).
    public var bytes: Int64
    /// Seconds of media written (the sum of every EXTINF) or sent.
    public var duration: Double
    /// Packets the stream dropped because it fell behind (its folder's disk or its network stalled) or was
    /// not connected, and the gaps that made in it.
    public var droppedPackets: Int
    public var gaps: Int
    /// Groups of pictures dropped whole or in part (each drop ends at a keyframe).
    public var droppedGOPs: Int? = nil
    /// A push: times it connected again after a loss, and seconds it was connected in all.
    public var reconnects: Int? = nil
    public var connectedSeconds: Double? = nil
    /// Why the stream stopped before the movie did (its folder failed, the server refused it); the movie is
    /// not affected.
    public var error: String?

    /// The playlist or the server, for a person.
    public var destination: String { playlist ?? url ?? kind }
}
