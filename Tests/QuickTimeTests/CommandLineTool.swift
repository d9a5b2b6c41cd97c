import Foundation

/// Runs the ffmpeg and ffprobe command-line tools, the independent oracle of the container tests. Output
/// goes to files, not pipes (a pipe's write end can leak into a child another test starts at the same moment,
/// which then never sees end-of-file).
enum CommandLineTool {
    struct Failure: Error, CustomStringConvertible {
        var command: String
        var status: Int32
        var standardError: String
        var description: String { "\(command) exited with \(status): \(standardError)" }
    }

    /// Runs `/usr/bin/<tool>` and returns its standard output; a non-zero exit throws with its standard error.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quicktime-tests-\(UUID().uuidString)")
        let output = scratch.appendingPathExtension("out"), error = scratch.appendingPathExtension("err")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: error)
        }
        guard FileManager.default.createFile(atPath: output.path, contents: nil),
              FileManager.default.createFile(atPath: error.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: error)
        try process.run()
        process.waitUntilExit()
        let standardError = (try? String(contentsOf: error, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(command: ([tool] + arguments).joined(separator: " "), status: process.terminationStatus, standardError: standardError)
        }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
