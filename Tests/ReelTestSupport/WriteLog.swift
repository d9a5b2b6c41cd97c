import Foundation

/// The life of one file as a process wrote it: every write, truncation and sync, logged by the LD_PRELOAD
/// shim in Tests/WriteLog (built here with the C compiler `make test` installs), so a test can rebuild every
/// state a kill or a power cut could have left on disk.
public enum WriteLog {
    public enum Operation: Sendable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(length: Int)
        case sync

        public var isSync: Bool { if case .sync = self { return true } else { return false } }
        public var isTruncate: Bool { if case .truncate = self { return true } else { return false } }
    }

    /// Builds the shim into `folder`; returns the library's path.
    public static func buildShim(in folder: String) throws -> String {
        try PreloadLibrary.build("WriteLog/writelog.c", named: "writelog", in: folder)
    }

    /// Runs `reel ARGUMENTS` (which writes `movie`) under the shim; returns its result and the operations on `movie`.
    public static func reel(_ arguments: [String], writing movie: String, in folder: String) throws -> (ProcessResult, [Operation]) {
        let shim = try buildShim(in: folder)
        let log = "\(folder)/writes.log"
        let result = try Processes.run(Processes.reelExecutable, arguments,
                                       environment: ["LD_PRELOAD": shim, "REEL_WRITE_LOG": log, "REEL_WRITE_LOG_TARGET": movie])
        let bytes = FileManager.default.contents(atPath: log).map { [UInt8]($0) } ?? []
        return (result, parse(bytes))
    }

    /// Records: one byte ('W', 'T', 'S'), offset and length as little-endian u64, then a write's bytes.
    public static func parse(_ log: [UInt8]) -> [Operation] {
        var operations: [Operation] = []
        var index = 0
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(log[at + $1]) << (8 * $1) } }
        while index + 17 <= log.count {
            let (op, offset, length) = (log[index], u64(index + 1), u64(index + 9))
            switch op {
            case UInt8(ascii: "W"):
                guard index + 17 + length <= log.count else { return operations }  // a record cut short: the log ends
                operations.append(.write(offset: offset, bytes: Array(log[index + 17 ..< index + 17 + length])))
                index += 17 + length
            case UInt8(ascii: "T"):
                operations.append(.truncate(length: offset))
                index += 17
            case UInt8(ascii: "S"):
                operations.append(.sync)
                index += 17
            default:
                return operations  // not a record: nothing after it can be trusted
            }
        }
        return operations
    }

    /// The file after `operations`, from nothing.
    public static func apply(_ operations: [Operation]) -> [UInt8] {
        var file: [UInt8] = []
        for operation in operations {
            switch operation {
            case .write(let offset, let bytes):
                if file.count < offset + bytes.count { file += Array(repeating: 0, count: offset + bytes.count - file.count) }
                file.replaceSubrange(offset ..< offset + bytes.count, with: bytes)
            case .truncate(let length):
                if length < file.count { file.removeSubrange(length...) } else { file += Array(repeating: 0, count: length - file.count) }
            case .sync:
                break
            }
        }
        return file
    }
}
