import Foundation

/// Where the CLI writes: results to stdout, errors and the status line to stderr.
enum Terminal {
    static var standardErrorIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    static func printError(_ message: String) {
        writeError("reel: error: \(message)\n")
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text + "\n"
    }
}
