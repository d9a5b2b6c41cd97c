import FoundationEssentials

/// A live stream pushed to a server (`--live srt://HOST:PORT?…`, `--live rtmp://HOST[:PORT]/APP/KEY`): the
/// main movie's packets, muxed as MPEG-TS over SRT or as FLV over RTMP, on a thread of their own. The
/// network never holds the movie up; a lost server is reconnected with a bounded backoff (LiveBackoff).
public struct LivePush: Sendable, Equatable {
    public enum Transport: String, Sendable, Codable {
        /// MPEG-TS over SRT (libsrt through libavformat), caller mode.
        case srt
        /// FLV over RTMP (libavformat's own RTMP client).
        case rtmp

        /// The container the packets travel in.
        var formatName: String { self == .srt ? "mpegts" : "flv" }
    }

    /// The server's address as given (it may hold a stream key or a passphrase: show `displayURL` instead).
    public let url: String
    public let transport: Transport
    /// The server's host name or address (looked up before each connection attempt).
    let host: String

    /// Parses and checks a server address: a scheme Reel pushes to, a host, a port (SRT has no default), and
    /// for RTMP an application and a stream key. The error says what is missing and how the address looks.
    public init(url: String) throws {
        let lowered = url.lowercased()
        guard let transport = [Transport.srt, .rtmp].first(where: { lowered.hasPrefix($0.rawValue + "://") }) else {
            throw ReelError.invalidInput("--live \(LivePush.hidingSecrets(url)): push to srt://HOST:PORT or rtmp://HOST/APP/KEY (other servers are not supported)")
        }
        self.url = url
        self.transport = transport
        let rest = url.dropFirst(transport.rawValue.count + 3)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let shown = LivePush.hidingSecrets(url)
        guard !authority.contains("@") else {
            throw ReelError.invalidInput("--live \(shown): a user and password before the host are not supported: give the stream key in the path (RTMP) or passphrase= (SRT)")
        }
        let (host, port) = LivePush.split(authority)
        guard !host.isEmpty else {
            throw ReelError.invalidInput("--live \(shown): no server host (\(transport == .srt ? "srt://HOST:PORT" : "rtmp://HOST/APP/KEY"))")
        }
        self.host = String(host)
        if let port, Int(port).map({ !(1...65535).contains($0) }) ?? true {
            throw ReelError.invalidInput("--live \(shown): the port '\(port)' is not a number from 1 to 65535")
        }
        switch transport {
        case .srt:
            guard port != nil else { throw ReelError.invalidInput("--live \(shown): an SRT address needs a port (srt://HOST:PORT)") }
            let query = rest[authorityEnd...].drop { $0 == "/" }
            if let mode = LivePush.parameters(String(query.drop { $0 == "?" })).first(where: { $0.key == "mode" })?.value,
               mode != "caller" {
                throw ReelError.invalidInput("--live \(shown): Reel calls the server (mode=caller); a listener or rendezvous mode is not supported")
            }
        case .rtmp:
            let path = rest[authorityEnd...].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            let parts = path.split(separator: "/")
            guard parts.count >= 2 else {
                throw ReelError.invalidInput("--live \(shown): an RTMP address names an application and a stream key (rtmp://HOST/APP/KEY)")
            }
        }
    }

    /// Rejects pushes that cannot work, before anything is written: the same server twice, or RTMP with a
    /// codec FLV cannot carry (FFmpeg 5.1's FLV muxer has no HEVC).
    package static func check(_ pushes: [LivePush], videoCodec: VideoCodec) throws {
        var seen: Set<String> = []
        for push in pushes {
            guard seen.insert(push.url).inserted else {
                throw ReelError.invalidInput("--live \(push.displayURL) is given twice: push to each server once")
            }
            if push.transport == .rtmp && videoCodec == .hevc {
                throw ReelError.invalidInput("--live \(push.displayURL): RTMP (FLV) carries H.264 only and this preset encodes HEVC: push it over SRT, or use an H.264 preset")
            }
        }
    }

    /// The address as it may be printed: an RTMP-style stream key (the last part of a path of two or more,
    /// whatever the scheme) and SRT's passphrase and stream id are replaced by `***`.
    public var displayURL: String { LivePush.hidingSecrets(url) }

    package static func hidingSecrets(_ url: String) -> String {
        let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var base = String(parts[0])
        if let schemeEnd = base.firstRange(of: "://")?.upperBound {
            let pathStart = base[schemeEnd...].firstIndex(of: "/") ?? base.endIndex
            // A user and password before the host.
            if let at = base[schemeEnd..<pathStart].lastIndex(of: "@") {
                base = base[..<schemeEnd] + "***" + base[at...]
            }
        }
        if let schemeEnd = base.firstRange(of: "://")?.upperBound, let pathStart = base[schemeEnd...].firstIndex(of: "/") {
            // The last part of a path of two or more (a trailing '/' does not hide it).
            var path = base[pathStart...]
            var trailing = ""
            while path.hasSuffix("/") {
                path = path.dropLast()
                trailing += "/"
            }
            if path.split(separator: "/").count >= 2, let slash = path.lastIndex(of: "/") {
                base = base[..<pathStart] + path[...slash] + "***" + trailing
            }
        }
        guard parts.count == 2 else { return base }
        let query = parameters(String(parts[1])).map { pair -> String in
            let secret = ["passphrase", "streamid", "key", "password", "pass", "token"].contains(pair.key.lowercased())
            return pair.value.map { pair.key + "=" + (secret ? "***" : $0) } ?? pair.key
        }
        return base + "?" + query.joined(separator: "&")
    }

    /// `key=value` pairs of a query, in order (a pair without '=' has no value).
    static func parameters(_ query: String) -> [(key: String, value: String?)] {
        query.split(separator: "&").map { pair in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(halves[0]), halves.count == 2 ? String(halves[1]) : nil)
        }
    }

    /// Host and port of an authority (`host`, `host:port`, `[v6]:port`).
    private static func split(_ authority: Substring) -> (host: Substring, port: Substring?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            return (host, after.hasPrefix(":") ? after.dropFirst() : nil)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
        return (authority[..<colon], authority[authority.index(after: colon)...])
    }
}
