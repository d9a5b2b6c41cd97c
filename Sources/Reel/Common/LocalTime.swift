import FoundationEssentials
import Glibc

/// Dates in local time for file names (and in UTC for playlists), with strftime (FoundationEssentials has no
/// DateFormatter).
package enum LocalTime {
    /// `date` as strftime formats it ("%Y%m%d-%H%M%S" → "20261130-071500").
    package static func format(_ pattern: String, _ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        return text(pattern, fields)
    }

    /// Seconds since 1970 as strftime formats them in UTC (an HLS playlist's program date).
    package static func formatUTC(_ pattern: String, seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        return text(pattern, fields)
    }

    private static func text(_ pattern: String, _ fields: tm) -> String {
        var fields = fields
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, pattern, &fields)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
