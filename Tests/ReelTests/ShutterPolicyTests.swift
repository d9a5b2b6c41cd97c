@testable import Reel
import Testing

/// The one tap/hold rule of `reel capture` and `reel serve`: recorded media against the threshold.
@Suite struct ShutterPolicyTests {
    @Test func aPressIsAHoldFromTheThresholdOn() throws {
        let policy = try ShutterPolicy(holdThreshold: 1)
        #expect(policy.press(recordedSeconds: 0) == .tap)
        #expect(policy.press(recordedSeconds: 0.999) == .tap)
        #expect(policy.press(recordedSeconds: 1) == .hold)
        #expect(try ShutterPolicy(holdThreshold: 0).press(recordedSeconds: 0) == .hold, "0: every press is a hold")
        #expect(ShutterPolicy.standard.holdThreshold == ShutterPolicy.defaultHoldThreshold)
    }

    @Test func aThresholdOutOfRangeIsRefused() {
        for bad in [-0.1, 3600.5, .nan] {
            #expect(throws: ReelError.self) { try ShutterPolicy(holdThreshold: bad) }
        }
    }
}
