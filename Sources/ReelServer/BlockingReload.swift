/// Low-Latency HLS blocking playlist reload (RFC 8216bis 6.2.5.2), as pure values: what a request asks for
/// (`_HLS_msn`, `_HLS_part`), where a media playlist is (its next segment and part), whether the one answers
/// the other, and the playlist as served (CAN-BLOCK-RELOAD=YES added: the server that holds requests says
/// so, not the file, which any web server may serve). Unit-tested in BlockingReloadTests.
enum BlockingReload {
    /// A playlist request that waits: until segment `segment` is whole, or with `part`, until that part of it
    /// is listed.
    struct Request: Equatable {
        var segment: Int
        var part: Int?

        /// Reads `_HLS_msn` and `_HLS_part`; nil when the request does not block. Throws a message for a 400.
        static func parse(msn: String?, part: String?) throws(BadRequest) -> Request? {
            guard let msn else {
                if part != nil { throw BadRequest("_HLS_part needs _HLS_msn") }
                return nil
            }
            guard let segment = Int(msn), segment >= 0 else { throw BadRequest("_HLS_msn '\(msn)' is not a media sequence number") }
            guard let part else { return Request(segment: segment) }
            guard let index = Int(part), index >= 0 else { throw BadRequest("_HLS_part '\(part)' is not a part index") }
            return Request(segment: segment, part: index)
        }
    }

    struct BadRequest: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Where a media playlist is: the sequence number its next segment gets, the parts of that segment it
    /// lists so far, whether it has ended, and its target duration.
    struct Position: Equatable {
        var nextSegment: Int
        var openParts: Int
        var ended: Bool
        var targetDuration: Int
        /// Seconds of whole segments listed.
        var listedSeconds: Double = 0

        /// Reads the position from a playlist's text (the tags Reel writes).
        init?(playlist text: String) {
            var sequence = 0, segments = 0, parts = 0, target: Int?, seconds = 0.0
            ended = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("#EXTINF:") {
                    seconds += Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," }) ?? 0
                } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                    sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? 0
                } else if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                    target = Int(line.dropFirst("#EXT-X-TARGETDURATION:".count))
                } else if line.hasPrefix("#EXT-X-PART:") {
                    parts += 1
                } else if line == "#EXT-X-ENDLIST" {
                    ended = true
                } else if !line.hasPrefix("#") && !line.isEmpty {
                    segments += 1
                    parts = 0
                }
            }
            guard let target else { return nil }
            nextSegment = sequence + segments
            openParts = parts
            targetDuration = target
            listedSeconds = seconds
        }

        init(nextSegment: Int, openParts: Int, ended: Bool, targetDuration: Int, listedSeconds: Double = 0) {
            self.nextSegment = nextSegment
            self.openParts = openParts
            self.ended = ended
            self.targetDuration = targetDuration
            self.listedSeconds = listedSeconds
        }

        /// Whether any player can start on it: it lists three target durations (where a player that does not
        /// read parts starts, RFC 8216bis 6.3.3), or the whole stream.
        var isPlayable: Bool { ended || listedSeconds >= Double(3 * targetDuration) - 0.001 }

        /// Whether the playlist answers the request now: it lists what was asked for (or has ended).
        func answers(_ request: Request) -> Bool {
            if ended || request.segment < nextSegment { return true }
            guard request.segment == nextSegment, let part = request.part else { return false }
            return part < openParts
        }

        /// RFC 8216bis: a request more than two segments past the last one is a 400 (it would wait for ever).
        func isTooFarAhead(_ request: Request) -> Bool { request.segment > nextSegment + 1 }

        /// How long a request may wait: three target durations (then 503, as the RFC says).
        var longestWait: Double { Double(3 * targetDuration) }

        /// Whether `name` is a part file the playlist will list next (the preload hint's, or the next
        /// segment's first): a request for it waits for it, as for the hint.
        func isComing(part name: String) -> Bool {
            guard let (segment, index) = BlockingReload.partNumbers(name) else { return false }
            return !ended && (segment == nextSegment && index >= openParts && index <= openParts + 1
                              || segment == nextSegment + 1 && index == 0)
        }
    }

    /// `partN.I.m4s` → (N, I).
    static func partNumbers(_ name: String) -> (Int, Int)? {
        guard name.hasPrefix("part"), name.hasSuffix(".m4s") else { return nil }
        let numbers = name.dropFirst(4).dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2, let segment = Int(numbers[0]), let part = Int(numbers[1]) else { return nil }
        return (segment, part)
    }

    /// The playlist as this server serves it: its EXT-X-SERVER-CONTROL says CAN-BLOCK-RELOAD=YES (one is
    /// added after EXT-X-TARGETDURATION when the file has none).
    static func served(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let index = lines.firstIndex(where: { $0.hasPrefix("#EXT-X-SERVER-CONTROL:") }) {
            if !lines[index].contains("CAN-BLOCK-RELOAD=YES") {
                lines[index] = "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES," + lines[index].dropFirst("#EXT-X-SERVER-CONTROL:".count)
            }
        } else if let index = lines.firstIndex(where: { $0.hasPrefix("#EXT-X-TARGETDURATION:") }) {
            lines.insert("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES", at: index + 1)
        }
        return lines.joined(separator: "\n")
    }
}
