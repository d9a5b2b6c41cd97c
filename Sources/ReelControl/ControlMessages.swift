import Reel
import FoundationEssentials

/// The control socket's JSON lines (mpv's JSON IPC shape): a request `{"command": ["switch-video",
/// "v4l2:/dev/video1"], "request_id": 7}` gets `{"request_id": 7, "error": "success", "data": ...}` or the
/// error's text in `error`; events are pushed as `{"event": "progress", ...}`. Pure, unit-tested.
package enum ControlMessages {
    /// The longest request line taken (a longer one is answered with an error and skipped).
    package static let maximumRequestBytes = 64 * 1024

    package struct Request: Sendable {
        package var command: [String]
        /// Echoed in the reply (a number or a string), so a client can match replies to requests.
        package var requestID: String?
    }

    private struct RequestLine: Decodable {
        var command: [String]
        var request_id: RequestID?
    }

    /// A request id as given: a number or a string, echoed back as it came.
    private struct RequestID: Decodable {
        var json: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                json = String(number)
            } else if let text = try? container.decode(String.self) {
                json = ControlMessages.quoted(text)
            } else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: "request_id is a number or a string"))
            }
        }
    }

    /// Parses one request line; throws with what is wrong (the reply then says it, with no request id).
    package static func request(_ line: [UInt8]) throws -> Request {
        if let key = DuplicateJSONKeys.first(in: line) {
            throw ReelError.invalidInput("not a request: \"\(ErrorText.path(key))\" is given twice; send each field once")
        }
        do {
            let decoded = try JSONDecoder().decode(RequestLine.self, from: Data(line))
            return Request(command: decoded.command, requestID: decoded.request_id?.json)
        } catch {
            throw ReelError.invalidInput("not a request: send one JSON object a line, {\"command\": [\"status\"], \"request_id\": 1}")
        }
    }

    /// A reply line (with its newline): `data` is already JSON, or nil.
    package static func reply(requestID: String?, error: String?, data: String?) -> String {
        var line = "{"
        if let requestID { line += "\"request_id\":\(requestID)," }
        line += "\"error\":\(quoted(error ?? "success"))"
        if let data { line += ",\"data\":\(data)" }
        return line + "}\n"
    }

    /// An event line: `{"event": NAME, ...the fields of `fields`}`.
    package static func event<T: Encodable>(_ name: String, _ fields: T) -> String {
        guard let body = json(fields), body.hasPrefix("{") else { return "{\"event\":\(quoted(name))}\n" }
        let rest = body.dropFirst()
        return "{\"event\":\(quoted(name))" + (rest.hasPrefix("}") ? "" : ",") + rest + "\n"
    }

    /// One line of compact JSON.
    package static func json<T: Encodable>(_ value: T) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) }
    }

    static func quoted(_ text: String) -> String { json(text) ?? "\"\"" }
}
