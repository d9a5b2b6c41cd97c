import FoundationEssentials

/// How a recording rolls over into consecutive files (ffmpeg's segment muxer, GStreamer's splitmuxsink, OBS's
/// automatic file splitting): every `duration` seconds of media and/or before a file would pass `size` bytes.
/// Each segment is a complete movie that starts with a keyframe; together they hold every picture and every
/// sample of the recording exactly once. With `keep` or `deletesOldestForFreeSpace` it is a loop recording.
public struct Segmentation: Sendable, Equatable {
    /// Seconds of media per segment, exact to the frame (a keyframe is forced at each boundary).
    public var duration: Double?
    /// Bytes a segment may take (index included); it is cut before it would pass them, using at least 90 %.
    public var size: Int64?
    /// Keep at most this many finished segments: the oldest ones this recording wrote are deleted.
    public var keep: Int?
    /// Loop recording: when free space would fall under the limits' min-free floor, delete the oldest
    /// finished segments this recording wrote instead of stopping (the recording stops only when none is left).
    public var deletesOldestForFreeSpace: Bool

    /// Segments shorter than a second would be mostly keyframes and headers.
    public static let durationRange: ClosedRange<Double> = 1...86_400
    public static let keepRange: ClosedRange<Int> = 1...1_000_000

    public init(duration: Double? = nil, size: Int64? = nil, keep: Int? = nil, deletesOldestForFreeSpace: Bool = false) {
        self.duration = duration
        self.size = size
        self.keep = keep
        self.deletesOldestForFreeSpace = deletesOldestForFreeSpace
    }

    /// The name of segment `index` (1-based) of a recording to `outputPath` starting at `date` (see SegmentNaming).
    public static func segmentPath(_ outputPath: String, index: Int, date: Date = Date()) -> String {
        SegmentNaming(template: outputPath).path(index: index, date: date)
    }

    /// The smallest segment size: a segment is cut before the pictures still inside the encoder could take
    /// it past its size, so it must hold many more than those (about forty keyframes' worth: 1.8 MB at 720p).
    public static func smallestSize(pictureSize: (width: Int, height: Int)?) -> Int64 {
        4 * RecordingLimits.smallestMaxFileSize(pictureWidth: pictureSize?.width, height: pictureSize?.height)
    }

    /// Rejects settings that cannot work before anything is written.
    package func validate(pictureSize: (width: Int, height: Int)?) throws {
        guard duration != nil || size != nil else {
            throw ReelError.invalidInput("segments need a duration or a size (--segment-duration S or --segment-size BYTES)")
        }
        if let duration, !Segmentation.durationRange.contains(duration) {
            throw ReelError.invalidInput("segment duration \(NumberText.plain(duration)) s is out of range: use \(NumberText.plain(Segmentation.durationRange.lowerBound)) to \(NumberText.plain(Segmentation.durationRange.upperBound)) seconds")
        }
        if let size {
            let smallest = Segmentation.smallestSize(pictureSize: pictureSize)
            if size < smallest {
                throw ReelError.invalidInput("segment size \(size) bytes is too small for this preset: use at least \((smallest + 999) / 1000)K (forty keyframes)")
            }
        }
        if let keep, !Segmentation.keepRange.contains(keep) {
            throw ReelError.invalidInput("keep-segments \(keep): keep at least 1 segment")
        }
    }
}
