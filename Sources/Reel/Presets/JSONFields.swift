import FoundationEssentials
import Glibc

/// Strict reading of a JSON object for user-written files (presets, job files): every key must be known,
/// every value of the right type and range, and each complaint names the file and the field path.
package struct JSONFields {
    package let object: [String: JSONValue]
    package let path: String
    package let source: String

    package init(_ value: JSONValue, path: String, source: String) throws {
        guard case .object(let object) = value else {
            throw ReelError.invalidInput("\(source): \(path.isEmpty ? "the top level" : path) must be a JSON object")
        }
        self.object = object
        self.path = path
        self.source = source
    }

    package static func parse(_ data: Data, source: String) throws -> JSONFields {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ReelError.invalidInput("\(source): not valid JSON (\(JSONFields.detail(of: error)))")
        }
        if let key = DuplicateJSONKeys.first(in: data) {
            throw ReelError.invalidInput("\(source): \"\(ErrorText.path(key))\" is given twice in one object: give each field once")
        }
        return try JSONFields(value, path: "", source: source)
    }

    package func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func fail(_ key: String, _ problem: String) -> ReelError {
        .invalidInput("\(source): \(name(key)): \(problem)")
    }

    package func rejectUnknownKeys(allowed: Set<String>) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail(unknown, "unknown field (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    package func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    package func string(_ key: String) throws -> String {
        guard let value = object[key] else { throw fail(key, "missing") }
        guard let text = value.stringValue, !text.isEmpty else { throw fail(key, "expected a non-empty string") }
        return text
    }

    package func optionalString(_ key: String) throws -> String? { has(key) ? try string(key) : nil }

    /// A list of non-empty strings.
    package func strings(_ key: String) throws -> [String] {
        guard let value = object[key] else { throw fail(key, "missing") }
        guard case .array(let items) = value else { throw fail(key, "expected a list of strings, got \(value.described)") }
        return try items.map { item in
            guard let text = item.stringValue, !text.isEmpty else { throw fail(key, "expected a list of strings, got \(item.described)") }
            return text
        }
    }

    package func number(_ key: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = object[key] else { throw fail(key, "missing") }
        guard case .number(let number) = value, number.isFinite else {
            throw fail(key, "expected a number, got \(value.described)")
        }
        guard range.contains(number) else {
            throw fail(key, "\(value.described) is out of range \(NumberText.plain(range.lowerBound))...\(NumberText.plain(range.upperBound))")
        }
        return number
    }

    package func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int {
        let value = try number(key, in: Double(range.lowerBound)...Double(range.upperBound))
        guard value == value.rounded() else { throw fail(key, "expected a whole number, got \(value)") }
        return Int(value)
    }

    package func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        has(key) ? try integer(key, in: range) : nil
    }

    /// A byte count or bit rate: a number, or a string with FFmpeg's suffixes ("4M", "512Ki").
    package func byteCount(_ key: String, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = object[key] else { throw fail(key, "missing") }
        let parsed: Int64?
        if case .number(let number) = value {
            parsed = number >= 0 && number == number.rounded() && number < 9e18 ? Int64(number) : nil
        } else if let text = value.stringValue {
            parsed = ByteCount.parse(text)
        } else {
            parsed = nil
        }
        guard let parsed else {
            throw fail(key, "expected a number or a size like \"4M\" or \"512Ki\", got \(value.described)")
        }
        guard range.contains(parsed) else { throw fail(key, "\(parsed) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return parsed
    }

    package func optionalByteCount(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        has(key) ? try byteCount(key, in: range) : nil
    }

    package func choice<T: RawRepresentable & CaseIterable>(_ key: String, default defaultValue: T) throws -> T
    where T.RawValue == String {
        guard has(key) else { return defaultValue }
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            throw fail(key, "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// A list of objects, each read strictly on its own (`key[0]`, `key[1]` ... in complaints).
    package func objects(_ key: String) throws -> [JSONFields] {
        guard let value = object[key] else { throw fail(key, "missing") }
        guard case .array(let items) = value else { throw fail(key, "expected a list of objects, got \(value.described)") }
        return try items.enumerated().map { index, item in try JSONFields(item, path: "\(name(key))[\(index)]", source: source) }
    }

    package func nested(_ key: String) throws -> JSONFields {
        guard let value = object[key] else { throw fail(key, "missing") }
        return try JSONFields(value, path: name(key), source: source)
    }

    /// What a JSONDecoder error says about where the document is broken.
    package static func detail(of error: any Error) -> String {
        guard case DecodingError.dataCorrupted(let context) = error else { return "\(error)" }
        let underlying = context.underlyingError.map { " \($0)" } ?? ""
        return context.debugDescription + underlying
    }
}
