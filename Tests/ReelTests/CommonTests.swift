import Dispatch
import FFmpegCore
import Foundation
@testable import Reel
import SystemSupport
import Testing

/// The small replacements for Foundation pieces that the `reel` binary does not link.
@Suite struct CommonTests {
    @Test func printfFormatsLikeC() {
        #expect(String(printf: "%.3f s", 1.23456) == "1.235 s")
        #expect(String(printf: "%ld:%02ld:%02ld", 1, 2, 3) == "1:02:03")
        #expect(String(printf: "%g fps", 29.97) == "29.97 fps")
        let long = String(printf: "%0100ld", 7)
        #expect(long.count == 100 && long.hasSuffix("7") && long.hasPrefix("000"), "longer than the first buffer")
    }

    @Test func trimsWhitespaceOnBothEnds() {
        #expect(" \t4M\n".trimmingWhitespace == "4M")
        #expect("   ".trimmingWhitespace == "")
        #expect("a b".trimmingWhitespace == "a b")
    }

    @Test func formatsLocalTime() {
        // Mid-month, so every time zone agrees on the year and month.
        #expect(LocalTime.format("%Y%m", Date(timeIntervalSince1970: 1_780_000_000)) == "202605")
    }

    @Test func conditionTimesOutOrWakesWhenSignalled() {
        let condition = Condition()
        condition.lock()
        let start = MonotonicClock.nanoseconds()
        #expect(!condition.wait(untilNanoseconds: start + 50_000_000), "nobody signals: times out")
        #expect(MonotonicClock.nanoseconds() - start >= 50_000_000)
        condition.unlock()

        let flag = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            condition.withLock {
                flag.withLock { $0 = true }
                condition.signal()
            }
        }
        condition.lock()
        var woken = true
        while !flag.withLock({ $0 }) && woken {
            woken = condition.wait(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000_000)
        }
        condition.unlock()
        #expect(woken && flag.withLock { $0 }, "signalled before the 5 s deadline")
    }

    @Test func tellsFoldersFromFiles() throws {
        #expect(FileSystem.isFolder("/"))
        #expect(!FileSystem.isFolder("/proc/self/status"))
        #expect(!FileSystem.isFolder("/no/such/path"))
    }
}
