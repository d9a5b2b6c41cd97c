/// One finished segment of a segmented recording (see Segmentation), as the result's `segments` and the
/// `segmentFinished` event report it.
public struct SegmentResult: Sendable, Codable, Equatable {
    /// The segment's file (gone if `deleted`).
    public var output: String
    /// 1, 2, 3 ... in recording order.
    public var index: Int
    /// Where the segment starts on the recording's timeline, in seconds of media.
    public var start: Double
    /// Seconds of media in the segment (the longer track).
    public var duration: Double
    public var bytes: Int64
    public var videoFrames: Int
    public var audioSamples: Int64
    /// The segment is finalized and plays on its own.
    public var recordedSuccessfully: Bool
    /// Bytes past the segment size, when the pictures already inside the encoder at the cut turned out
    /// larger than foreseen (SegmentSizeCut): the segment keeps them rather than losing them. Absent otherwise.
    public var bytesOverSize: Int64? = nil
    /// Deleted by loop recording (`keep` or the free-space floor) after it was finished.
    public var deleted: Bool = false
}
