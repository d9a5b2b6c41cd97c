/// A track described by its codec parameters, as an encoder hands them to a muxer (FFmpeg's
/// AVCodecParameters, OBS's encoder parameters): what the container code needs without an encoder object.
public struct TrackDescription: Equatable, Sendable {
    /// The kind of track, with the picture size or the audio format.
    public enum Media: Equatable, Sendable {
        case video(width: Int, height: Int)
        case audio(sampleRate: Int, channels: Int)
    }

    public var media: Media
    public var codec: Codec
    /// The unit of the timestamps of the samples given for this track (the encoder's time base).
    public var timeBase: TimeBase
    /// The codec headers as the encoder made them: Annex B parameter sets from x264 and x265 (which the
    /// muxer turns into an avcC or hvcC record), AAC's AudioSpecificConfig; or a stored record read back.
    public var extradata: [UInt8]
    /// The bit rate the encoder was asked for, in bits a second (0 for quality-based rate control).
    public var bitRate: Int64

    public init(media: Media, codec: Codec, timeBase: TimeBase, extradata: [UInt8], bitRate: Int64 = 0) {
        self.media = media
        self.codec = codec
        self.timeBase = timeBase
        self.extradata = extradata
        self.bitRate = bitRate
    }

    public var isVideo: Bool {
        if case .video = media { return true }
        return false
    }

    /// Bytes of the codec header the sample description stores: a video track's configuration record
    /// (avcC, hvcC: CodecConfigurationRecord.size), an audio track's extradata as it is.
    public var storedHeaderSize: Int {
        isVideo ? CodecConfigurationRecord.size(codec: codec, extradata: extradata) : extradata.count
    }
}
