import FoundationEssentials
import Glibc

/// Dates in local time for file names, with strftime (FoundationEssentials has no DateFormatter).
package enum LocalTime {
    /// `date` as strftime formats it ("%Y%m%d-%H%M%S" → "20261130-071500").
    package static func format(_ pattern: String, _ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, pattern, &fields)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
