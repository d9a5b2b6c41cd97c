import Foundation

/// Runs programs for tests: the built `reel` binary, ffprobe, mount, Xvfb.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

public enum Processes {
    /// The `reel` executable built next to the test bundle (swift build puts both in .build/<config>/).
    public static var reelExecutable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first { $0.hasSuffix(".xctest") } ?? CommandLine.arguments[0])
        var folder = bundle.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("reel").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return executable.appendingPathComponent("reel").path
    }

    /// Starts a process; the caller waits on it (or signals it).
    public static func start(_ executable: String, _ arguments: [String], currentDirectory: String? = nil,
                             environment: [String: String]? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output, error)
    }

    /// Runs to completion (killed after `timeout` seconds) and collects the output.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: String? = nil,
                           environment: [String: String]? = nil, timeout: Double = 120) throws -> ProcessResult {
        let (process, output, error) = try start(executable, arguments, currentDirectory: currentDirectory,
                                                 environment: environment)
        return finish(process, output, error, timeout: timeout)
    }

    public static func finish(_ process: Process, _ output: Pipe, _ error: Pipe, timeout: Double = 120) -> ProcessResult {
        let deadline = Date(timeIntervalSinceNow: timeout)
        // Read while waiting so a chatty process cannot block on a full pipe.
        let collected = OutputCollector(output: output, error: error)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            usleep(500_000)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let (stdout, stderr) = collected.finish()
        return ProcessResult(status: process.terminationStatus, standardOutput: stdout, standardError: stderr)
    }

    public static func reel(_ arguments: [String], currentDirectory: String? = nil, timeout: Double = 120) throws -> ProcessResult {
        try run(reelExecutable, arguments, currentDirectory: currentDirectory, timeout: timeout)
    }

    /// Runs a shell command line, for set-up steps (mount, Xvfb, xsetroot).
    @discardableResult
    public static func shell(_ command: String, timeout: Double = 60) throws -> ProcessResult {
        try run("/bin/sh", ["-c", command], timeout: timeout)
    }
}

private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var output = Data(), error = Data()
    private let group = DispatchGroup()

    init(output: Pipe, error: Pipe) {
        for (pipe, isOutput) in [(output, true), (error, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                self.lock.lock()
                if isOutput { self.output = data } else { self.error = data }
                self.lock.unlock()
                self.group.leave()
            }
        }
    }

    func finish() -> (String, String) {
        group.wait()
        lock.lock()
        defer { lock.unlock() }
        return (String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}

/// A fresh folder per test, removed by the caller.
public enum Scratch {
    public static func folder(_ name: String = "reel-test") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    public static func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}

/// ffprobe's view of a file: the independent oracle beside our own decoding.
public enum FFprobe {
    public static func streams(_ path: String) throws -> [[String: Any]] {
        let result = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              let streams = object["streams"] as? [[String: Any]] else { return [] }
        return streams
    }

    public static func stream(_ path: String, type: String) throws -> [String: Any]? {
        try streams(path).first { $0["codec_type"] as? String == type }
    }
}
