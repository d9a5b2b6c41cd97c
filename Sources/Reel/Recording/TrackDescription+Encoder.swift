import FFmpegCore
import QuickTime

/// Encoders meet the container code at codec parameters (the module has no FFmpeg types).
extension TrackDescription {
    /// The track an encoder's packets make: its kind and size or rate, codec, time base and headers.
    init(_ encoder: Encoder) {
        self.init(media: encoder.mediaType == .video ? .video(width: encoder.width, height: encoder.height)
                                                     : .audio(sampleRate: encoder.sampleRate, channels: encoder.channelCount),
                  codec: Codec(encoder.codecIdentifier), timeBase: TimeBase(encoder.timeBase),
                  extradata: encoder.extradata, bitRate: encoder.bitRate)
    }

    /// The track of packets described by `parameters` (an encoder's, copied on its thread).
    init(_ parameters: StreamParameters) {
        self.init(media: parameters.mediaType == .video ? .video(width: parameters.width, height: parameters.height)
                                                        : .audio(sampleRate: parameters.sampleRate, channels: parameters.channelCount),
                  codec: Codec(parameters.codecIdentifier), timeBase: TimeBase(parameters.timeBase),
                  extradata: parameters.extradata, bitRate: parameters.bitRate)
    }
}

extension TimeBase {
    init(_ rational: Rational) {
        self.init(rational.numerator, rational.denominator)
    }
}
