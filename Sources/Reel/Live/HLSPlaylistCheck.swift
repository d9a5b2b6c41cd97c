/// Reads an HLS media playlist back and checks it against RFC 8216bis and Apple's HLS authoring rules for
/// fMP4 streams (mediastreamvalidator needs a Mac): the tags a player needs, EXTINFs within the target
/// duration, an init segment, date-times that parse. Pure: `HLSPlaylistCheckTests` feed it good and broken
/// playlists; the end-to-end tests run it on what `reel record --live` wrote.
struct HLSPlaylistCheck: Equatable {
    struct Entry: Equatable {
        var uri: String
        var duration: Double
        var programDateTime: String?
        var followsGap: Bool
    }

    var entries: [Entry] = []
    var targetDuration: Int?
    var mediaSequence = 0
    var mapURI: String?
    var isEnded = false
    var isEvent = false
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
                entries.append(Entry(uri: line, duration: duration, programDateTime: pendingDate, followsGap: pendingGap))
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
        for (index, entry) in entries.enumerated() {
            if entry.duration.rounded() > Double(targetDuration) {
                problems.append("segment \(mediaSequence + index) (\(entry.uri)) lasts \(entry.duration) s, which rounds above the target duration \(targetDuration)")
            } else if entry.duration > Double(targetDuration) + HLSPlaylistCheck.allowedOverrun {
                problems.append("segment \(mediaSequence + index) (\(entry.uri)) runs past the target duration by more than 0.5 s")
            }
        }
    }

    /// The sum of the listed segments' EXTINFs.
    var totalDuration: Double { entries.reduce(0) { $0 + $1.duration } }

    private static func value(of tag: String, in line: String) -> String? {
        line.hasPrefix(tag) ? String(line.dropFirst(tag.count)) : nil
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
