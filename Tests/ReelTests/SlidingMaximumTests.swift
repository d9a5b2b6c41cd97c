@testable import Reel
import Testing

/// SlidingMaximum against the plain scan it replaces, on pseudo-random values at irregular positions.
@Suite struct SlidingMaximumTests {
    @Test func answersWhatAScanOfTheWindowWould() {
        var maximum = SlidingMaximum(window: 100)
        var added: [(position: Int64, value: Int64)] = []
        var seed: UInt64 = 12345
        var position: Int64 = 0
        var mismatches = 0
        for _ in 0..<5_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            position += Int64(seed >> 60)  // steps of 0 to 15: several values can share a position
            let value = Int64(truncatingIfNeeded: seed >> 40) % 1000
            added.append((position, value))
            added.removeAll { position - $0.position > 100 }
            if maximum.add(value, at: position) != added.map(\.value).max()! { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func forgetsEverythingWhenEmptied() {
        var maximum = SlidingMaximum(window: 10)
        _ = maximum.add(50, at: 0)
        maximum.removeAll()
        #expect(maximum.add(3, at: 1) == 3)
    }
}
