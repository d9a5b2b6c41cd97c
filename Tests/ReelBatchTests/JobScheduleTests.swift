import Foundation
@testable import Reel
@testable import ReelBatch
import Testing

/// Issue 15: when scheduled record jobs start (`startAt`).
@Suite struct JobScheduleTests {
    /// A date from local fields, as the tests' expectations.
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (fields.tm_hour, fields.tm_min, fields.tm_sec, fields.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
        return Date(timeIntervalSince1970: Double(mktime(&fields)))
    }

    @Test func isoTimesAreLocalUnlessAZoneIsGiven() throws {
        let now = Self.local(2026, 11, 30, 9, 0)
        #expect(try JobSchedule.parse("2026-11-30T14:05", now: now, duration: 60) == Self.local(2026, 11, 30, 14, 5))
        #expect(try JobSchedule.parse("2026-12-01T07:08:09", now: now, duration: 60) == Self.local(2026, 12, 1, 7, 8, 9))
        #expect(try JobSchedule.parse("2026-11-30T14:05:00Z", now: now, duration: 60).timeIntervalSince1970 == 1_796_047_500)
        #expect(try JobSchedule.parse("2026-11-30T15:05:00+01:00", now: now, duration: 60).timeIntervalSince1970 == 1_796_047_500)
        #expect(try JobSchedule.parse("2026-11-30T09:35-04:30", now: now, duration: 60).timeIntervalSince1970 == 1_796_047_500)
    }

    @Test func aClockTimeIsItsNextOccurrence() throws {
        let now = Self.local(2026, 11, 30, 14, 30)
        // Later today.
        #expect(try JobSchedule.parse("16:00", now: now, duration: 600) == Self.local(2026, 11, 30, 16, 0))
        // Earlier today but still running at 14:30 (a 50-minute lecture from 14:00): today, started late.
        #expect(try JobSchedule.parse("14:00", now: now, duration: 3000) == Self.local(2026, 11, 30, 14, 0))
        // Earlier today and over: tomorrow.
        #expect(try JobSchedule.parse("14:00:30", now: now, duration: 60) == Self.local(2026, 12, 1, 14, 0, 30))
    }

    @Test func aJobWhoseTimePassedByMoreThanItsDurationIsMissed() {
        let start = Self.local(2026, 11, 30, 14, 0)
        #expect(JobSchedule.start(start, duration: 60, now: start.addingTimeInterval(59)) == .at(start))
        guard case .missed(let reason) = JobSchedule.start(start, duration: 60, now: start.addingTimeInterval(61)) else {
            Issue.record("a job 61 s late for 60 s is missed")
            return
        }
        #expect(reason.contains("2026-11-30 14:00:00") && reason.contains("61 s ago"), "\(reason)")
    }

    @Test func badTimesSayWhatIsExpected() {
        let now = Date()
        for text in ["", "14", "25:00", "14:60", "2026-13-01T10:00", "2026-11-30 10:00", "2026-11-30T10:00+1", "tomorrow", "1:05"] {
            #expect(throws: ReelError.self, "\(text)") { try JobSchedule.parse(text, now: now, duration: 1) }
        }
    }

    /// Issue 24, item 17: values are read as written, or refused.
    @Test func startTimesMustBeRealDates() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for text in ["2026-02-30T10:00", "2026-04-31T10:00", "2027-02-29T10:00", "2026-13-01T10:00", "2026-00-10T10:00"] {
            #expect(throws: ReelError.self, "\(text)") { try JobSchedule.parse(text, now: now, duration: 1) }
        }
        _ = try JobSchedule.parse("2028-02-29T10:00", now: now, duration: 1)
        _ = try JobSchedule.parse("2026-12-31T23:59:59", now: now, duration: 1)
        #expect(JobSchedule.daysIn(month: 2, year: 1900) == 28 && JobSchedule.daysIn(month: 2, year: 2000) == 29)
    }
}
