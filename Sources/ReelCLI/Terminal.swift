import FoundationEssentials
import Glibc
import SystemSupport
import Reel

/// Where the CLI writes: results to stdout, errors and the status line to stderr.
enum Terminal {
    static var standardErrorIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// One line however long what it quotes: past `longestErrorLine` bytes its middle is left out.
    static func printError(_ message: String) {
        let line = message.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
        writeError("reel: error: \(line.utf8.count > longestErrorLine ? shortened(line) : line)\n")
    }

    static let longestErrorLine = 2000

    static func shortened(_ line: String) -> String {
        let characters = Array(line)
        return String(characters.prefix(longestErrorLine / 2)) + " …(\(line.utf8.count) bytes in all)… "
            + String(characters.suffix(longestErrorLine / 4))
    }

    static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// All of `text`, however many write calls it takes (a pipe may take part of it).
    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = (try? SystemCall.retrying("write") { bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } }) ?? -1
            guard written > 0 else { return }  // the reader went away: nothing left to tell
            bytes = bytes.dropFirst(written)
        }
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text + "\n"
    }
}

extension ExitCode {
    /// The command-line option a library error is about, which the library's messages never name.
    /// `floorOption`: the option that set the free-space floor (`--keep-free` sets it too).
    static func option(for kind: ReelError.Kind, floorOption: String = "--min-free") -> String {
        switch kind {
        case .outputExists: return " (--overwrite)"
        case .limitImpossible(.maxFileSize): return " (--max-size)"
        case .limitImpossible(.minFreeDiskSpace): return " (\(floorOption))"
        case .limitImpossible(.maxDuration): return " (--max-duration)"
        default: return ""
        }
    }

    /// Prints a failure as one error line and picks its exit code: 2 for bad usage or input, else 1.
    static func reporting(_ error: any Error, floorOption: String = "--min-free") -> ExitCode {
        switch error {
        case let error as ReelError:
            Terminal.printError(error.description + ExitCode.option(for: error.kind, floorOption: floorOption))
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
