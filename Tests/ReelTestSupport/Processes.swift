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

    /// A started process whose output goes to files (not pipes: a pipe's write end can leak into another
    /// child started at the same moment and then never reports end-of-file).
    public struct Running {
        public let process: Process
        let outputFile: String
        let errorFile: String

        /// What the process has written to its standard output so far.
        public func outputSoFar() -> String {
            (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        }
    }

    /// Starts a process; the caller waits on it with `finish` (or signals it first).
    public static func start(_ executable: String, _ arguments: [String], currentDirectory: String? = nil,
                             environment: [String: String]? = nil, discardOutput: Bool = false) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reel-process-\(UUID().uuidString)").path
        let outputFile = base + ".out", errorFile = base + ".err"
        if discardOutput {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        } else {
            guard FileManager.default.createFile(atPath: outputFile, contents: nil),
                  FileManager.default.createFile(atPath: errorFile, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            process.standardOutput = FileHandle(forWritingAtPath: outputFile)
            process.standardError = FileHandle(forWritingAtPath: errorFile)
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, outputFile: outputFile, errorFile: errorFile)
    }

    /// Runs to completion (killed after `timeout` seconds) and collects the output.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: String? = nil,
                           environment: [String: String]? = nil, timeout: Double = 120) throws -> ProcessResult {
        finish(try start(executable, arguments, currentDirectory: currentDirectory, environment: environment), timeout: timeout)
    }

    /// Waits for the process (SIGTERM, then SIGKILL, after `timeout` seconds) and reads what it printed.
    /// Waits until `path` exists (a recording has really started: a loaded machine starts it late), at most
    /// `seconds`; false if it never appeared.
    @discardableResult
    public static func waitForFile(_ path: String, seconds: Double = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    public static func finish(_ running: Running, timeout: Double = 120) -> ProcessResult {
        let process = running.process
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            usleep(500_000)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let output = (try? String(contentsOfFile: running.outputFile, encoding: .utf8)) ?? ""
        let error = (try? String(contentsOfFile: running.errorFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: running.outputFile)
        try? FileManager.default.removeItem(atPath: running.errorFile)
        return ProcessResult(status: process.terminationStatus, standardOutput: output, standardError: error)
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

    /// The first video stream's packets in presentation order: whether each is a keyframe, and an MD5 of its bytes.
    public static func videoPackets(_ path: String) throws -> [(keyframe: Bool, hash: String)] {
        let result = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,flags,data_hash",
                                                            "-show_data_hash", "MD5", "-of", "csv=p=0", path])
        guard result.status == 0 else { return [] }
        let packets = result.standardOutput.split(separator: "\n").compactMap { line -> (Int, Bool, String)? in
            let fields = line.split(separator: ",")
            guard fields.count == 3, let pts = Int(fields[0]) else { return nil }
            return (pts, fields[1].hasPrefix("K"), String(fields[2]))
        }
        return packets.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
    }
}

/// Checks of real-time behaviour (how fast a device is read, when a stall is noticed, how audio keeps time)
/// cannot hold under a sanitizer's 5-20x slowdown: `make check-tsan` sets REEL_SANITIZER so those checks are
/// skipped there (with a printed note) while the code paths still run under the sanitizer. `make test`, which
/// CI runs, always makes them.
public enum RealTimeChecks {
    public static var enabled: Bool {
        guard let sanitizer = ProcessInfo.processInfo.environment["REEL_SANITIZER"], !sanitizer.isEmpty else { return true }
        return false
    }

    /// Prints why a timing check is skipped; returns whether to make it.
    public static func make(_ what: String) -> Bool {
        if !enabled { print("not checked under \(ProcessInfo.processInfo.environment["REEL_SANITIZER"]!): \(what)") }
        return enabled
    }
}
