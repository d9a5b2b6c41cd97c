import Foundation
import Reel

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

extension ExitCode {
    /// Prints a failure as one error line and picks its exit code: 2 for bad usage or input, else 1.
    static func reporting(_ error: any Error) -> ExitCode {
        switch error {
        case let error as ReelError:
            Terminal.printError(error.description)
            return error.isInvalidInput ? .usage : .failure
        case let error as UsageError:
            Terminal.printError(error.description)
            return .usage
        default:
            Terminal.printError("\(error)")
            return .failure
        }
    }
}

extension ParsedArguments {
    /// For listing commands that take only `--json`.
    static func jsonFlagOnly(_ arguments: [String], command: String) throws -> ParsedArguments {
        let parsed = try ParsedArguments(arguments, command: command,
                                         specification: .init(valueOptions: [], flagOptions: ["--json"]))
        guard parsed.positionals.isEmpty else { throw UsageError("\(command): unexpected argument \(parsed.positionals[0])") }
        return parsed
    }
}
