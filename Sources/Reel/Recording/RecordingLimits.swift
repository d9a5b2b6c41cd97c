/// When a recording stops by itself, as AVCaptureMovieFileOutput's maxRecordedDuration,
/// maxRecordedFileSize and minFreeDiskSpaceLimit.
public struct RecordingLimits: Sendable, Equatable {
    /// Which limit a `ReelError.Kind.limitImpossible` is about.
    public enum Limit: String, Sendable, Equatable {
        case maxDuration, maxFileSize, minFreeDiskSpace
    }

    /// Seconds of media; nil records until stopped.
    public var maxDuration: Double?
    /// Bytes of the finished file, trailer included; nil for no limit.
    public var maxFileSize: Int64?
    /// Free bytes to leave on the output's filesystem; 0 disables the floor.
    public var minFreeDiskSpace: Int64

    public static let defaultMinFreeDiskSpace: Int64 = 64 * 1024 * 1024
    /// Seconds a max duration may be: a millisecond to about 115 days. Past that, sample counts and
    /// microsecond clocks would come close to overflowing (the CLI and job files read the range from here).
    public static let maxDurationRange: ClosedRange<Double> = 0.001...10_000_000
    /// The smallest max-size that holds a header, an empty index and a first keyframe at a small tier.
    public static let smallestMaxFileSize: Int64 = 32 * 1024

    /// The smallest max size a tier can use to at least 90 %: the packet that no longer fits is lost, and a
    /// keyframe is the largest, so the limit must hold about ten of them. A keyframe is estimated at 0.4
    /// bits a pixel (x264 on a detailed picture at the tiers' quality: 352x288 5 KB, 720p 34 KB, 1080p
    /// 95 KB measured on the test pattern). Never below `smallestMaxFileSize`.
    public static func smallestMaxFileSize(pictureWidth width: Int?, height: Int?) -> Int64 {
        guard let width, let height else { return smallestMaxFileSize }
        return max(smallestMaxFileSize, 10 * keyframeEstimate(width: width, height: height))
    }

    /// Bytes of a typical keyframe at this picture size (0.4 bits a pixel).
    static func keyframeEstimate(width: Int, height: Int) -> Int64 { Int64(width * height) / 20 }

    public init(maxDuration: Double? = nil, maxFileSize: Int64? = nil,
                minFreeDiskSpace: Int64 = RecordingLimits.defaultMinFreeDiskSpace) {
        self.maxDuration = maxDuration
        self.maxFileSize = maxFileSize
        self.minFreeDiskSpace = minFreeDiskSpace
    }

    /// The same, with the duration as a Swift `Duration` (`.seconds(90)`, `.milliseconds(1500)`).
    public init(maxDuration: Duration, maxFileSize: Int64? = nil,
                minFreeDiskSpace: Int64 = RecordingLimits.defaultMinFreeDiskSpace) {
        let (seconds, attoseconds) = maxDuration.components
        self.init(maxDuration: Double(seconds) + Double(attoseconds) / 1e18, maxFileSize: maxFileSize,
                  minFreeDiskSpace: minFreeDiskSpace)
    }

    /// Rejects limits that cannot be met before anything is written (a usage error, not a stop reason).
    public func validate(freeBytes: Int64?, outputFolder: String, pictureSize: (width: Int, height: Int)? = nil) throws {
        if let maxDuration, !RecordingLimits.maxDurationRange.contains(maxDuration) {
            throw ReelError(.limitImpossible(.maxDuration),
                "max duration \(maxDuration) is out of range: use \(NumberText.plain(RecordingLimits.maxDurationRange.lowerBound)) to \(NumberText.plain(RecordingLimits.maxDurationRange.upperBound)) seconds")
        }
        if let maxFileSize, maxFileSize < RecordingLimits.smallestMaxFileSize {
            throw ReelError(.limitImpossible(.maxFileSize),
                "max size \(maxFileSize) bytes cannot hold a movie header and index: use at least \(RecordingLimits.smallestMaxFileSize) (32Ki)")
        }
        if let maxFileSize, let pictureSize,
           case let smallest = RecordingLimits.smallestMaxFileSize(pictureWidth: pictureSize.width, height: pictureSize.height),
           maxFileSize < smallest {
            let keyframe = RecordingLimits.keyframeEstimate(width: pictureSize.width, height: pictureSize.height)
            throw ReelError(.limitImpossible(.maxFileSize),
                "max size \(maxFileSize) bytes is too small for \(pictureSize.width)x\(pictureSize.height) pictures, whose keyframes take about \((keyframe + 999) / 1000)K each: use at least \((smallest + 999) / 1000)K (ten keyframes), or a smaller preset")
        }
        if minFreeDiskSpace < 0 { throw ReelError(.limitImpossible(.minFreeDiskSpace), "min free disk space cannot be negative") }
        if minFreeDiskSpace > 0, let freeBytes, freeBytes < minFreeDiskSpace + RecordingLimits.smallestMaxFileSize {
            throw ReelError(.limitImpossible(.minFreeDiskSpace),
                "only \(ByteCount.format(freeBytes)) free on the filesystem of \(outputFolder), below the free-space floor of \(ByteCount.format(minFreeDiskSpace)) plus room for a movie: free space or lower the floor (0 disables it)")
        }
    }
}
