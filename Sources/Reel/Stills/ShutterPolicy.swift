import FoundationEssentials

/// Tap = photo, hold = video: the one rule that `reel capture` (PressCapture) and `reel serve`'s shutter both
/// follow. Recording starts when the shutter goes down; when it comes up the movie is stopped and finalized,
/// and the press was a **hold** if the movie holds at least `holdThreshold` seconds of media, else a **tap**
/// (keep the photo of the first picture, delete the movie). Recorded media, not wall-clock time, measures the
/// press: it is what the movie would keep, it leaves out a pause, and it means the same for an unpaced source
/// (a file read faster than real time) as for a camera. For a camera it is the time from its first picture to
/// the release.
public struct ShutterPolicy: Sendable, Equatable {
    public enum Press: String, Sendable, Codable { case tap, hold }

    /// Seconds a hold threshold may be.
    public static let holdThresholdRange: ClosedRange<Double> = 0...3600
    public static let defaultHoldThreshold: Double = 1

    public let holdThreshold: Double

    public init(holdThreshold: Double = ShutterPolicy.defaultHoldThreshold) throws {
        guard ShutterPolicy.holdThresholdRange.contains(holdThreshold) else {
            throw ReelError.invalidInput("hold threshold \(holdThreshold) is out of range: use 0 to \(NumberText.plain(ShutterPolicy.holdThresholdRange.upperBound)) seconds")
        }
        self.holdThreshold = holdThreshold
    }

    /// The default threshold (1 s).
    public static var standard: ShutterPolicy { ShutterPolicy(checked: defaultHoldThreshold) }

    private init(checked holdThreshold: Double) { self.holdThreshold = holdThreshold }

    /// What a press whose movie holds `recordedSeconds` of media was.
    public func press(recordedSeconds: Double) -> Press {
        recordedSeconds < holdThreshold ? .tap : .hold
    }
}
