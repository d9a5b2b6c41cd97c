/// Prometheus's text exposition format, version 0.0.4 (what `/metrics` serves): each family's `# HELP` and
/// `# TYPE` lines, then its samples, `name{label="value"} number`. Label values are escaped (backslash, quote,
/// line feed); numbers are Go's forms (`+Inf`, `-Inf`, `NaN`). Pure, unit-tested with Prometheus's own parser.
struct PrometheusText {
    enum Kind: String {
        case counter, gauge
    }

    struct Sample {
        var labels: [(String, String)] = []
        var value: Double
    }

    private(set) var text = ""

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A family; one without samples is left out (Prometheus reads that as absent).
    mutating func add(_ name: String, _ kind: Kind, _ help: String, _ samples: [Sample]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(PrometheusText.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            let labels = sample.labels.isEmpty ? ""
                : "{" + sample.labels.map { "\($0.0)=\"\(PrometheusText.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
            text += name + labels + " " + PrometheusText.number(sample.value) + "\n"
        }
    }

    /// One sample without labels.
    mutating func add(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        add(name, kind, help, [Sample(value: value)])
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func escapeLabel(_ text: String) -> String { escape(text, quotes: true) }

    static func escapeHelp(_ text: String) -> String { escape(text, quotes: false) }

    private static func escape(_ text: String, quotes: Bool) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quotes: escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
