/// One sample (an encoded picture or audio frame) as a container indexes it: timing, size and flags, no
/// payload. Times count ticks of whatever time base the holder uses (an encoder's, or the track's).
public struct Sample: Equatable, Sendable {
    /// When the sample is decoded, in ticks (before 0 for what decodes ahead of the first picture shown).
    public var decodeTime: Int64
    /// Presentation time minus decode time: above 0 for a picture shown after pictures decoded later.
    public var presentationOffset: Int64
    /// Until the next sample's decode time (the last one: its own length).
    public var duration: Int64
    /// Bytes of the payload (in a file: as stored there, after any start-code rewriting).
    public var size: Int
    public var isKeyframe: Bool
    /// No other sample refers to it (x265's non-reference B-frames, FFmpeg's AV_PKT_FLAG_DISPOSABLE): such a
    /// track gets an `sdtp` box.
    public var isDisposable: Bool

    public init(decodeTime: Int64, presentationOffset: Int64 = 0, duration: Int64, size: Int, isKeyframe: Bool,
                isDisposable: Bool = false) {
        self.decodeTime = decodeTime
        self.presentationOffset = presentationOffset
        self.duration = duration
        self.size = size
        self.isKeyframe = isKeyframe
        self.isDisposable = isDisposable
    }

    public var presentationTime: Int64 { decodeTime + presentationOffset }

    /// The sample in another time base, with its presentation time, decode time and duration each rounded
    /// to the nearest tick, as FFmpeg rescales a packet (av_packet_rescale_ts).
    public func converted(from source: TimeBase, to destination: TimeBase) -> Sample {
        guard source != destination else { return self }
        var converted = self
        converted.decodeTime = source.convert(decodeTime, to: destination)
        converted.presentationOffset = source.convert(presentationTime, to: destination) - converted.decodeTime
        converted.duration = source.convert(duration, to: destination)
        return converted
    }
}
