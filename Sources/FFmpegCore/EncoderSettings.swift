/// Everything needed to open a video encoder. Plain values, so it can be built anywhere and sent to the
/// thread that owns the encoder.
public struct VideoEncoderSettings: Sendable, Equatable {
    public var codecName: String = "libx264"
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat = .yuv420p
    /// The colour tags written into the stream (H.264 VUI, QuickTime colr); the frames must match them.
    public var colour: ColourDescription = .unspecified
    public var frameRate: Rational
    /// Ticks of the encoder's clock; defaults to one tick per frame.
    public var timeBase: Rational
    public var keyframeInterval: Int
    public var bitRate: Int? = nil
    public var maxRate: Int? = nil
    public var bufferSize: Int? = nil
    public var threads: Int = 0
    /// Codec-private options, applied in order (x264: preset, tune, crf, profile, x264-params).
    public var privateOptions: [PrivateOption] = []

    public init(width: Int, height: Int, frameRate: Rational, keyframeInterval: Int) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.timeBase = frameRate.inverted
        self.keyframeInterval = keyframeInterval
    }
}

public struct AudioEncoderSettings: Sendable, Equatable {
    public var codecName: String = "aac"
    public var sampleRate: Int
    public var channels: Int
    public var bitRate: Int
    public var sampleFormat: SampleFormat = .floatPlanar

    public init(sampleRate: Int, channels: Int, bitRate: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
    }
}

public struct PrivateOption: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}
