import Reel
import FoundationEssentials
import Glibc

/// When a scheduled record job starts (its `startAt`): an ISO 8601 local date and time
/// (`2026-11-30T14:05`, seconds optional, `Z` or `+01:00` for another zone), or `HH:MM[:SS]` for its next
/// occurrence: today, unless today's recording would already be over, then tomorrow. Pure, unit-tested.
public enum JobSchedule {
    /// What a scheduled job does once the batch reaches it.
    public enum Start: Equatable, Sendable {
        /// Wait until then.
        case at(Date)
        /// Its time has passed by more than its duration: it is not run.
        case missed(String)
    }

    /// The start `text` names, seen at `now`, for a job lasting `duration` seconds.
    public static func parse(_ text: String, now: Date, duration: Double) throws -> Date {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count <= 2, !text.isEmpty else { throw invalid(text) }
        if parts.count == 1 {
            // HH:MM[:SS] today, or tomorrow when today's would already have ended.
            let (hour, minute, second) = try clock(String(parts[0]), text: text)
            var fields = localFields(now)
            (fields.tm_hour, fields.tm_min, fields.tm_sec, fields.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
            var start = Date(timeIntervalSince1970: Double(mktime(&fields)))
            if start.timeIntervalSince1970 + duration <= now.timeIntervalSince1970 {
                fields = localFields(now)
                (fields.tm_mday, fields.tm_hour, fields.tm_min, fields.tm_sec, fields.tm_isdst) =
                    (fields.tm_mday + 1, Int32(hour), Int32(minute), Int32(second), -1)
                start = Date(timeIntervalSince1970: Double(mktime(&fields)))
            }
            return start
        }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard day.count == 3, day[0].count == 4, day[1].count == 2, day[2].count == 2,
              let year = Int(day[0]), let month = Int(day[1]), let date = Int(day[2]),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(date) else { throw invalid(text) }
        var time = String(parts[1])
        var offset: Int? = nil  // seconds east of UTC, when a zone is given
        if time.hasSuffix("Z") {
            offset = 0
            time.removeLast()
        } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = time[time.index(after: sign)...].split(separator: ":")
            guard zone.count == 2, let hours = Int(zone[0]), let minutes = Int(zone[1]), hours <= 14, minutes < 60 else { throw invalid(text) }
            offset = (time[sign] == "+" ? 1 : -1) * (hours * 3600 + minutes * 60)
            time = String(time[..<sign])
        }
        let (hour, minute, second) = try clock(time, text: text)
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(date))
        (fields.tm_hour, fields.tm_min, fields.tm_sec, fields.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
        if let offset { return Date(timeIntervalSince1970: Double(timegm(&fields) - offset)) }
        return Date(timeIntervalSince1970: Double(mktime(&fields)))
    }

    /// What a job scheduled at `start` for `duration` seconds does at `now`.
    public static func start(_ start: Date, duration: Double, now: Date) -> Start {
        let late = now.timeIntervalSince(start)
        if late >= duration {
            return .missed("its start time \(LocalTime.format("%Y-%m-%d %H:%M:%S", start)) passed \(NumberText.plain((late * 10).rounded() / 10)) s ago, more than its \(NumberText.plain(duration)) s duration")
        }
        return .at(start)
    }

    private static func clock(_ text: String, text whole: String) throws -> (Int, Int, Int) {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields.allSatisfy({ $0.count == 2 }),
              let hour = Int(fields[0]), let minute = Int(fields[1]), hour < 24, minute < 60 else { throw invalid(whole) }
        let second = fields.count == 3 ? Int(fields[2]) : 0
        guard let second, second < 60 else { throw invalid(whole) }
        return (hour, minute, second)
    }

    /// 28 to 31: 2026-02-30 is no date (mktime would make it 2026-03-02).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func localFields(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        return fields
    }

    private static func invalid(_ text: String) -> ReelError {
        ReelError.invalidInput("'\(text)' is not a start time: use local ISO 8601 (2026-11-30T14:05, seconds and a zone optional) or HH:MM for the next occurrence")
    }
}
