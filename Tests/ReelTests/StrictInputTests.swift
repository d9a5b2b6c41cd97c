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
}
