/// An HLS multivariant playlist (RFC 8216bis 4.4.6): one variant stream per movie of the recording (the main
/// movie and each tier), each a media playlist of its own, with what a player picks by: BANDWIDTH (the peak
/// segment bit rate), AVERAGE-BANDWIDTH, CODECS, RESOLUTION, FRAME-RATE. Pure: HLSPlaylistTests.
struct HLSMultivariantPlaylist: Equatable {
    struct Variant: Equatable {
        /// The media playlist, relative to this one ("720p/index.m3u8").
        var uri: String
        /// Bits per second: the peak over its segments (or the preset's ceiling before any is measured).
        var bandwidth: Int
        var averageBandwidth: Int?
        /// RFC 6381 strings, video first ("avc1.64001F,mp4a.40.2").
        var codecs: [String]
        var resolution: (width: Int, height: Int)?
        var frameRate: Double?

        static func == (a: Variant, b: Variant) -> Bool {
            a.uri == b.uri && a.bandwidth == b.bandwidth && a.averageBandwidth == b.averageBandwidth && a.codecs == b.codecs
                && a.resolution?.width == b.resolution?.width && a.resolution?.height == b.resolution?.height && a.frameRate == b.frameRate
        }
    }

    var variants: [Variant]

    var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        // Highest first: a player that takes the first variant starts with the best.
        for variant in variants.sorted(by: { $0.bandwidth > $1.bandwidth }) {
            var attributes = ["BANDWIDTH=\(variant.bandwidth)"]
            if let average = variant.averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(average)") }
            if !variant.codecs.isEmpty { attributes.append("CODECS=\"\(variant.codecs.joined(separator: ","))\"") }
            if let resolution = variant.resolution { attributes.append("RESOLUTION=\(resolution.width)x\(resolution.height)") }
            if let rate = variant.frameRate { attributes.append("FRAME-RATE=\(NumberText.fixed(rate, decimals: 3))") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
