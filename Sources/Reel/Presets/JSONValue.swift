import FoundationEssentials

/// A parsed JSON document, as JSONSerialization would give it but typed, decoded with FoundationEssentials'
/// JSONDecoder (Reel does not link Foundation). Booleans and numbers stay apart: `true` is never 1.
package enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Most values in presets and job files are strings, then objects: try those first (each miss throws).
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// How an error message shows the value.
    var described: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let text): return "\"\(text)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
