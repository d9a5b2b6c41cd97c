import FoundationEssentials
import Glibc

// Small pieces of Foundation that FoundationEssentials leaves out, done with the C library.

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    public var trimmingWhitespace: String {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return String(self[start..<Swift.max(start, end)])
    }
}

public enum LocalTime {
    /// `date` in local time, as strftime formats it ("%Y%m%d-%H%M%S" → "20261130-071500").
    public static func format(_ pattern: String, _ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, pattern, &fields)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

enum FileSystem {
    /// Whether `path` names a folder (following symbolic links).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
