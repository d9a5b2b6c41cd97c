import Foundation
@testable import Reel
import Testing

/// Issue 24, item 17: values are read as written, or refused.
@Suite struct StrictInputTests {
    @Test func numbersMustBeDecimal() {
        for (text, value) in [("12", 12.0), ("0.5", 0.5), ("-3", -3), ("+2", 2), ("1e3", 1000), ("2.5E-1", 0.25), (".5", 0.5)] {
            #expect(NumberText.decimal(text) == value, "\(text)")
        }
        for text in ["0x10", "inf", "nan", "", "1e", "e3", "1.2.3", "1_000", " 1", "0x1p3", "1,5", "-"] {
            #expect(NumberText.decimal(text) == nil, "\(text)")
        }
    }

    @Test func startTimesMustBeRealDates() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for text in ["2026-02-30T10:00", "2026-04-31T10:00", "2027-02-29T10:00", "2026-13-01T10:00", "2026-00-10T10:00"] {
            #expect(throws: ReelError.self, "\(text)") { try JobSchedule.parse(text, now: now, duration: 1) }
        }
        _ = try JobSchedule.parse("2028-02-29T10:00", now: now, duration: 1)
        _ = try JobSchedule.parse("2026-12-31T23:59:59", now: now, duration: 1)
        #expect(JobSchedule.daysIn(month: 2, year: 1900) == 28 && JobSchedule.daysIn(month: 2, year: 2000) == 29)
    }

    @Test func repeatedKeysAreFound() {
        let cases: [(String, String?)] = [
            (#"{"command": ["status"], "command": ["stop"]}"#, "command"),
            (#"{"a": {"b": 1, "c": 2}, "b": 3}"#, nil),
            (#"{"a": {"b": 1, "b": 2}}"#, "b"),
            (#"{"a": "command", "command": 1}"#, nil),
            (#"[{"x": 1}, {"x": 2}]"#, nil),
            (#"{"k\"q": 1, "k\"q": 2}"#, #"k\"q"#),
            (#"{"list": ["a", "a"], "s": "{\"a\": 1, \"a\": 2}"}"#, nil),
        ]
        for (json, key) in cases {
            #expect(DuplicateJSONKeys.first(in: Array(json.utf8)) == key, "\(json)")
        }
    }

    @Test func aRequestWithARepeatedCommandIsRefused() {
        #expect(throws: ReelError.self) {
            try ControlMessages.request(Array(#"{"command": ["status"], "command": ["stop"]}"#.utf8))
        }
        #expect((try? ControlMessages.request(Array(#"{"command": ["status"], "request_id": 1}"#.utf8))) != nil)
    }
}
