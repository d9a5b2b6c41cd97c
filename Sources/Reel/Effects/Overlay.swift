import FoundationEssentials

/// Text or a picture drawn on the captured picture before it is encoded, so every output (movies, tiers,
/// live streams, stills, the preview) shows it: `--overlay SPEC`, a job's `"overlays"`. With several video
/// inputs it is drawn on the composed picture.
///
/// `text:TEXT[?OPTIONS]`: TEXT may hold `%{localtime}` (the date and time of day), `%{time}` (the time of day),
/// `%{timecode}` (the recording's clock, HH:MM:SS.mmm from its first picture) and `%{frame}` (pictures captured,
/// from 0). Options: `at=` a position, `size=` the text's height as a fraction of the picture's (default 0.05),
/// `font=` a fontconfig name (default DejaVu Sans), `colour=` (default white), `box=0` for no shaded box.
/// `image:FILE.png[?OPTIONS]`: a picture with its alpha, `at=`, `size=` its width as a fraction of the
/// picture's (default 0.2). Positions: top-left, top, top-right, left, center, right, bottom-left, bottom,
/// bottom-right (a margin of 3 % of the height from the edges), or X,Y as fractions of the picture (its top left).
public struct Overlay: Sendable, Equatable, Encodable {
    public enum Content: Sendable, Equatable {
        case text(String)
        case image(path: String)
    }

    public enum Position: Sendable, Equatable {
        case named(String)
        case fraction(x: Double, y: Double)
    }

    public var content: Content
    public var position: Position
    public var size: Double
    public var font: String
    public var colour: LayoutColour
    public var box: Bool
    /// The spec it was read from (how a preset that holds it is written back).
    public private(set) var spec: String

    static let positions = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]
    public static let defaultFont = "DejaVu Sans"
    static let sizeRange = 0.01...1.0
    /// The fields a text may hold, and libavfilter drawtext's expansion of each.
    static let fields: [(String, String)] = [
        ("%{localtime}", "%{localtime:%Y-%m-%d %H\\:%M\\:%S}"), ("%{time}", "%{localtime:%H\\:%M\\:%S}"),
        // drawtext's own `pts:hms` puts a space before positive times: hours to seconds, then milliseconds.
        ("%{timecode}", "%{pts:gmtime:0:%H\\:%M\\:%S}.%{eif:mod(t*1000,1000):d:3}"), ("%{frame}", "%{frame_num}"),
    ]

    public init(parsing spec: String) throws {
        self.spec = spec
        func fail(_ problem: String) -> ReelError { .invalidInput("overlay '\(spec)': \(problem)") }
        guard let colon = spec.firstIndex(of: ":") else { throw fail("write text:TEXT or image:FILE.png (with ?at=...&size=...)") }
        let kind = spec[..<colon]
        var body = String(spec[spec.index(after: colon)...])
        var options: [String: String] = [:]
        if let question = body.lastIndex(of: "?") {
            for pair in body[body.index(after: question)...].split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else { throw fail("option '\(pair)' is not key=value") }
                options[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            body = String(body[..<question])
        }
        guard !body.isEmpty else { throw fail("nothing to draw after '\(kind):'") }
        let allowed: Set<String>
        switch kind {
        case "text":
            content = .text(body)
            allowed = ["at", "size", "font", "colour", "box"]
        case "image":
            guard body.lowercased().hasSuffix(".png") else { throw fail("an image overlay is a .png file (its alpha is kept)") }
            guard FileManager.default.isReadableFile(atPath: body) else { throw fail("cannot read \(ErrorText.path(body)): check the path") }
            content = .image(path: body)
            allowed = ["at", "size"]
        default:
            throw fail("unknown kind '\(kind)': use text: or image:")
        }
        if let unknown = options.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail("unknown option '\(unknown)' (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        let at = options["at"] ?? (kind == "text" ? "bottom-left" : "top-right")
        if Overlay.positions.contains(at) {
            position = .named(at)
        } else {
            let parts = at.split(separator: ",").map { Double($0) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else {
                throw fail("at=\(at): use \(Overlay.positions.joined(separator: ", ")) or X,Y fractions of the picture (0.1,0.8)")
            }
            position = .fraction(x: x, y: y)
        }
        let defaultSize = kind == "text" ? 0.05 : 0.2
        guard let size = options["size"].map(Double.init) ?? defaultSize, Overlay.sizeRange.contains(size) else {
            throw fail("size=\(options["size"] ?? ""): use a fraction of the picture, 0.01 to 1")
        }
        self.size = size
        font = options["font"] ?? Overlay.defaultFont
        // The name goes into the filter graph's text as it is: only what font names are made of.
        guard !font.isEmpty, font.allSatisfy({ $0.isLetter || $0.isNumber || " -_.".contains($0) }) else {
            throw fail("font=\(font): a fontconfig family name (letters, digits, spaces, - _ .), e.g. DejaVu Sans Mono")
        }
        do { colour = try LayoutColour(parsing: options["colour"] ?? "white") } catch let error as ReelError { throw fail(error.message) }
        guard ["0", "1", nil].contains(options["box"]) else { throw fail("box=\(options["box"]!): use 1 or 0") }
        box = options["box"] != "0"
        if case .text(let text) = content, text.contains("%{") {
            var rest = text
            for (field, _) in Overlay.fields { rest = rest.replacing(field, with: "") }
            if let start = rest.firstRange(of: "%{") {
                let field = rest[start.lowerBound...].prefix { $0 != "}" }
                throw fail("unknown field '\(field)}': use \(Overlay.fields.map(\.0).joined(separator: ", "))")
            }
        }
    }

    /// The text as drawtext's expansion reads it: the fields as its functions, everything else literal.
    var expandedText: String? {
        guard case .text(let text) = content else { return nil }
        var result = text.replacing("\\", with: "\\\\").replacing("%", with: "\\%")
        for (field, expansion) in Overlay.fields {
            result = result.replacing(field.replacing("%", with: "\\%"), with: expansion)
        }
        return result
    }

    /// Where the overlay's top left goes, as libavfilter expressions over the picture (`W`, `H`) and the
    /// overlay's size (`w`, `h`).
    func placement(pictureHeight: Int) -> (x: String, y: String) {
        let margin = max(2, Int(Double(pictureHeight) * 0.03))
        switch position {
        case .fraction(let x, let y): return ("W*\(x)", "H*\(y)")
        case .named(let name):
            let x = name.hasSuffix("left") ? "\(margin)" : name.hasSuffix("right") ? "W-w-\(margin)" : "(W-w)/2"
            let y = name.hasPrefix("top") ? "\(margin)" : name.hasPrefix("bottom") ? "H-h-\(margin)" : "(H-h)/2"
            return (x, y)
        }
    }
}

extension Overlay {
    /// An overlay is written as its spec.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(spec)
    }

    /// Reads a spec as it stands in a file: an image's relative path is taken from `folder` (the file's).
    public init(parsing text: String, relativeTo folder: String) throws {
        var spec = text
        if text.hasPrefix("image:") && !text.hasPrefix("image:/") {
            spec = "image:" + (folder.isEmpty ? "" : folder + "/") + String(text.dropFirst(6))
        }
        try self.init(parsing: spec)
    }
}
