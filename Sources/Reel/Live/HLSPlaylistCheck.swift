/// Reads an HLS media playlist back and checks it against RFC 8216bis and Apple's HLS authoring rules for
/// fMP4 streams (mediastreamvalidator needs a Mac): the tags a player needs, EXTINFs within the target
/// duration, an init segment, date-times that parse; for Low-Latency HLS the parts' rules (within the part
/// target, at least 85 % of it unless independent or the last of a segment, adding up to the segment, the
/// first of a segment independent) and PART-HOLD-BACK of at least three part targets. Pure: `HLSPlaylistCheckTests` feed it good and broken
/// playlists; the end-to-end tests run it on what `reel record --live` wrote.
struct HLSPlaylistCheck: Equatable {
    struct Part: Equatable {
        var uri: String
        var duration: Double
        var isIndependent: Bool
    }

    struct Entry: Equatable {
        var uri: String
        var duration: Double
        var programDateTime: String?
        var followsGap: Bool
        var parts: [Part] = []
    }

    var entries: [Entry] = []
    /// Parts after the last segment: those of the segment being written.
    var openParts: [Part] = []
    var partTarget: Double?
    var partHoldBack: Double?
    var canBlockReload = false
    var preloadHint: String?
    var targetDuration: Int?
    var mediaSequence = 0
    var mapURI: String?
    var isEnded = false
    var isEvent = false
    private var independentSegments = false
    /// Each rule broken, as a sentence naming the line.
    var problems: [String] = []

    /// How far a segment may run past the target duration (Apple: segments within half a second of it).
    static let allowedOverrun = 0.5

    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        guard lines.first == "#EXTM3U" else {
            problems.append("line 1 is not #EXTM3U")
            return
        }
        var version: Int?
        var independent = false
        var pendingDuration: Double?
        var pendingDate: String?
        var pendingGap = false
        for (offset, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let number = offset + 1
            if isEnded { problems.append("line \(number) follows #EXT-X-ENDLIST") }
            if let value = HLSPlaylistCheck.value(of: "#EXT-X-VERSION:", in: line) {
                version = Int(value)
                if version == nil { problems.append("line \(number): EXT-X-VERSION '\(value)' is not an integer") }
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-TARGETDURATION:", in: line) {
                if targetDuration != nil { problems.append("line \(number): a second EXT-X-TARGETDURATION") }
                targetDuration = Int(value)
                if targetDuration == nil { problems.append("line \(number): EXT-X-TARGETDURATION '\(value)' is not an integer") }
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-MEDIA-SEQUENCE:", in: line) {
                guard let sequence = Int(value) else {
                    problems.append("line \(number): EXT-X-MEDIA-SEQUENCE '\(value)' is not an integer")
                    continue
                }
                mediaSequence = sequence
                if !entries.isEmpty { problems.append("line \(number): EXT-X-MEDIA-SEQUENCE after a segment") }
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-MAP:", in: line) {
                mapURI = HLSPlaylistCheck.quotedAttribute("URI", in: value)
                if mapURI == nil { problems.append("line \(number): EXT-X-MAP without a quoted URI") }
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-PART-INF:", in: line) {
                partTarget = HLSPlaylistCheck.attribute("PART-TARGET", in: value).flatMap(Double.init)
                if partTarget == nil { problems.append("line \(number): EXT-X-PART-INF without a PART-TARGET in seconds") }
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-SERVER-CONTROL:", in: line) {
                canBlockReload = HLSPlaylistCheck.attribute("CAN-BLOCK-RELOAD", in: value) == "YES"
                partHoldBack = HLSPlaylistCheck.attribute("PART-HOLD-BACK", in: value).flatMap(Double.init)
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-PART:", in: line) {
                guard let uri = HLSPlaylistCheck.quotedAttribute("URI", in: value),
                      let duration = HLSPlaylistCheck.attribute("DURATION", in: value).flatMap(Double.init), duration > 0 else {
                    problems.append("line \(number): EXT-X-PART needs a positive DURATION and a quoted URI")
                    continue
                }
                if partTarget == nil { problems.append("line \(number): EXT-X-PART before any EXT-X-PART-INF") }
                openParts.append(Part(uri: uri, duration: duration, isIndependent: HLSPlaylistCheck.attribute("INDEPENDENT", in: value) == "YES"))
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-PRELOAD-HINT:", in: line) {
                preloadHint = HLSPlaylistCheck.quotedAttribute("URI", in: value)
                if HLSPlaylistCheck.attribute("TYPE", in: value) != "PART" || preloadHint == nil {
                    problems.append("line \(number): EXT-X-PRELOAD-HINT needs TYPE=PART and a quoted URI")
                }
            } else if line == "#EXT-X-INDEPENDENT-SEGMENTS" {
                independent = true
            } else if line == "#EXT-X-PLAYLIST-TYPE:EVENT" {
                isEvent = true
            } else if line == "#EXT-X-DISCONTINUITY" {
                pendingGap = true
            } else if line == "#EXT-X-ENDLIST" {
                isEnded = true
            } else if let value = HLSPlaylistCheck.value(of: "#EXT-X-PROGRAM-DATE-TIME:", in: line) {
                if !HLSPlaylistCheck.isDateTime(value) { problems.append("line \(number): '\(value)' is not an ISO 8601 date-time") }
                pendingDate = value
            } else if let value = HLSPlaylistCheck.value(of: "#EXTINF:", in: line) {
                let text = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                guard let duration = Double(text), duration > 0 else {
                    problems.append("line \(number): EXTINF '\(text)' is not a positive number of seconds")
                    continue
                }
                pendingDuration = duration
            } else if line.hasPrefix("#") {
                continue  // comments and tags this check does not read
            } else {
                guard let duration = pendingDuration else {
                    problems.append("line \(number): '\(line)' has no EXTINF before it")
                    continue
                }
                if mapURI == nil { problems.append("line \(number): segment '\(line)' comes before any EXT-X-MAP") }
                entries.append(Entry(uri: line, duration: duration, programDateTime: pendingDate, followsGap: pendingGap,
                                     parts: openParts))
                openParts = []
                pendingDuration = nil
                pendingDate = nil
                pendingGap = false
            }
        }
        if pendingDuration != nil { problems.append("the last EXTINF has no segment after it") }
        guard let targetDuration else {
            problems.append("there is no EXT-X-TARGETDURATION")
            return
        }
        if (version ?? 1) < 6 { problems.append("EXT-X-VERSION \(version ?? 1) is below 6, which EXT-X-MAP needs in a media playlist") }
        if !independent { problems.append("there is no EXT-X-INDEPENDENT-SEGMENTS (every segment starts with a keyframe)") }
        independentSegments = independent
        checkParts()
        for (index, entry) in entries.enumerated() {
            if entry.duration.rounded() > Double(targetDuration) {
                problems.append("segment \(mediaSequence + index) (\(entry.uri)) lasts \(entry.duration) s, which rounds above the target duration \(targetDuration)")
            } else if entry.duration > Double(targetDuration) + HLSPlaylistCheck.allowedOverrun {
                problems.append("segment \(mediaSequence + index) (\(entry.uri)) runs past the target duration by more than 0.5 s")
            }
        }
    }

    /// The parts' rules (RFC 8216bis 4.4.4.9, Apple's LL-HLS authoring: PART-HOLD-BACK at least three part
    /// targets).
    private mutating func checkParts() {
        let all = entries.flatMap(\.parts) + openParts
        guard let partTarget else {
            if !all.isEmpty { problems.append("there are parts but no EXT-X-PART-INF") }
            return
        }
        if let partHoldBack {
            if partHoldBack < 3 * partTarget - 1e-9 { problems.append("PART-HOLD-BACK \(partHoldBack) is less than three part targets (\(3 * partTarget))") }
        } else {
            problems.append("there is no EXT-X-SERVER-CONTROL with PART-HOLD-BACK")
        }
        let groups = entries.filter { !$0.parts.isEmpty }.map { ($0.parts, Optional($0)) } + (openParts.isEmpty ? [] : [(openParts, nil)])
        for (parts, segment) in groups {
            for (index, part) in parts.enumerated() {
                let last = segment != nil && index == parts.count - 1
                if part.duration > partTarget + 1e-6 {
                    problems.append("part \(part.uri) lasts \(part.duration) s, longer than the part target \(partTarget)")
                } else if !part.isIndependent && !last && part.duration < 0.85 * partTarget - 1e-6 {
                    problems.append("part \(part.uri) lasts \(part.duration) s, less than 85 % of the part target")
                }
            }
            if let segment {
                let sum = parts.reduce(0) { $0 + $1.duration }
                if abs(sum - segment.duration) > 0.001 { problems.append("the parts of \(segment.uri) add up to \(sum) s, not its \(segment.duration)") }
            }
            if parts.first?.isIndependent == false && independentSegments {
                problems.append("the first part of \(segment?.uri ?? "the open segment") is not INDEPENDENT=YES, but every segment starts with a keyframe")
            }
        }
        if !isEnded && preloadHint == nil { problems.append("there is no EXT-X-PRELOAD-HINT for the next part") }
    }

    /// The sum of the listed segments' EXTINFs.
    var totalDuration: Double { entries.reduce(0) { $0 + $1.duration } }

    private static func value(of tag: String, in line: String) -> String? {
        line.hasPrefix(tag) ? String(line.dropFirst(tag.count)) : nil
    }

    /// `NAME=value` (unquoted) in an attribute list.
    static func attribute(_ name: String, in list: String) -> String? {
        list.split(separator: ",").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// `NAME="value"` in an attribute list.
    static func quotedAttribute(_ name: String, in list: String) -> String? {
        for part in list.split(separator: ",") where part.hasPrefix(name + "=\"") {
            let rest = part.dropFirst(name.count + 2)
            guard let close = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<close])
        }
        return nil
    }

    /// YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm).
    static func isDateTime(_ text: String) -> Bool {
        let characters = Array(text.utf8)
        guard characters.count >= 20 else { return false }
        let digits: [Int] = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (48...57).contains(characters[$0]) }),
              characters[4] == 45, characters[7] == 45, characters[10] == 84, characters[13] == 58, characters[16] == 58 else { return false }
        var index = 19
        if characters[index] == 46 {
            index += 1
            while index < characters.count, (48...57).contains(characters[index]) { index += 1 }
        }
        guard index < characters.count else { return false }
        if characters[index] == 90 { return index == characters.count - 1 }
        return (characters[index] == 43 || characters[index] == 45) && characters.count - index == 6
    }
}
