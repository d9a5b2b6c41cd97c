import CFFmpeg

/// A description of one stream of an opened input, copied out so it can travel between threads.
public struct StreamInfo: Sendable {
    public let index: Int
    public let mediaType: MediaType
    public let codecName: String
    public let timeBase: Rational
    public let width: Int
    public let height: Int
    public let pixelFormat: PixelFormat
    public let frameRate: Rational?
    public let sampleRate: Int
    public let channelCount: Int
    /// Start and duration in `timeBase`, when the container knows them.
    public let startTime: Int64?
    public let duration: Int64?
    /// Clockwise rotation in degrees a player applies to show the picture upright (display matrix).
    public let rotationDegrees: Int
    /// The display matrix is a reflection: players mirror the picture (before the rotation).
    public let isMirrored: Bool
    public var turn: DisplayTurn { DisplayTurn(clockwiseDegrees: rotationDegrees, mirrored: isMirrored) }
    public let frameCount: Int64
    /// The codec headers the container stores for the stream (an avcC or hvcC record, AudioSpecificConfig).
    public let extradata: [UInt8]
    public var extradataSize: Int { extradata.count }
    /// A single picture attached to the file (an album's cover art), not a video track.
    public let isAttachedPicture: Bool
    /// The colour tags of the stream (from the container's colr atom or the codec's headers).
    public let colour: ColourDescription
    /// The pixel aspect the container states (QuickTime's pasp), which players prefer over the codec's; nil
    /// when it states none.
    public let containerSampleAspectRatio: Rational?

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar!.pointee
        index = Int(stream.pointee.index)
        mediaType = MediaType(parameters.codec_type)
        codecName = String(cString: avcodec_get_name(parameters.codec_id))
        timeBase = Rational(stream.pointee.time_base)
        width = Int(parameters.width)
        height = Int(parameters.height)
        pixelFormat = PixelFormat(AVPixelFormat(parameters.format))
        let average = Rational(stream.pointee.avg_frame_rate)
        let real = Rational(stream.pointee.r_frame_rate)
        frameRate = average.isValid ? average : (real.isValid ? real : nil)
        sampleRate = Int(parameters.sample_rate)
        channelCount = Int(parameters.ch_layout.nb_channels)
        let noValue = Timestamp.noValue
        startTime = stream.pointee.start_time == noValue ? nil : stream.pointee.start_time
        duration = stream.pointee.duration == noValue || stream.pointee.duration <= 0 ? nil : stream.pointee.duration
        frameCount = stream.pointee.nb_frames
        extradata = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []
        isAttachedPicture = stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        colour = ColourDescription(primaries: ColourPrimaries(parameters.color_primaries),
                                   transfer: TransferCurve(parameters.color_trc), matrix: ColourMatrix(parameters.color_space),
                                   range: ColourRange(parameters.color_range))
        let container = Rational(stream.pointee.sample_aspect_ratio)
        containerSampleAspectRatio = container.isValid ? container : nil
        var sideDataSize: Int = 0
        if let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &sideDataSize),
           sideDataSize >= 9 * MemoryLayout<Int32>.size {
            var values = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
            // A reflection (negative determinant) is a mirror and a rotation: the rotation is read from the
            // matrix with its mirror undone (its first column negated, as av_display_matrix_flip does).
            isMirrored = Int64(values[0]) * Int64(values[4]) - Int64(values[1]) * Int64(values[3]) < 0
            if isMirrored { (values[0], values[3], values[6]) = (-values[0], -values[3], -values[6]) }
            let angle = av_display_rotation_get(values)
            // av_display_rotation_get is counter-clockwise; players rotate clockwise by its negation.
            let clockwise = angle.isNaN ? 0 : Int((-angle).rounded())
            rotationDegrees = ((clockwise % 360) + 360) % 360
        } else {
            rotationDegrees = 0
            isMirrored = false
        }
    }

    public var durationSeconds: Double? { duration.map { Double($0) * timeBase.doubleValue } }
}
