import CLinuxCapture
import FFmpegCore
import Glibc
import SystemSupport

/// A V4L2 camera read directly with the kernel's streaming I/O (memory-mapped buffers), without libavdevice:
/// loading libavdevice and its ~50 libraries costs a snapshot ~30 ms and every recording ~4 MB of memory.
/// MJPEG and H.264 buffers are decoded with FFmpeg's decoders, raw pictures copied into frames; each frame
/// is stamped with the buffer's capture time (CLOCK_MONOTONIC, microseconds). Used for the modes Reel
/// negotiates itself (`input_format`, `video_size`, `framerate`); a spec with other libavdevice options
/// goes through libavdevice as before.
final class V4L2FrameSource: FrameSource {
    private let stream: OpaquePointer
    private let format: reel_v4l2_format
    private let decoder: ElementaryDecoder?
    private let rawFormat: PixelFormat?
    private let interrupt: InterruptFlag
    private let spec: DeviceSpec
    private(set) var streams: [SourceStream] = []
    /// A compressed camera's first picture, decoded while opening to learn its pixel format and colour (as
    /// libavformat's stream probing does), handed out first.
    private var pending: Frame? = nil
    /// Gaps in the buffers' sequence numbers: pictures the camera dropped because every buffer was still
    /// waiting to be read (the reader fell behind by all of them).
    private(set) var picturesDroppedByDevice = 0
    private var lastSequence: UInt32? = nil


    /// The options this source takes; anything else needs libavdevice.
    static let handledOptions: Set<String> = ["input_format", "video_size", "framerate"]

    /// The V4L2 fourcc for an FFmpeg input_format name (VideoMode's table), and the decoder its buffers need
    /// (compressed formats; raw ones are copied as they are).
    static func format(named inputFormat: String) -> (fourcc: String, decoder: String?)? {
        guard let fourcc = VideoMode.ffmpegInputFormats.first(where: { $0.value == inputFormat })?.key else { return nil }
        return (fourcc, ["mjpeg", "h264"].contains(inputFormat) ? inputFormat : nil)
    }

    /// Whether a recipe can be read directly: a V4L2 camera in a mode Reel names completely.
    static func canOpen(_ recipe: InputRecipe) -> Bool {
        guard recipe.formatName == "v4l2" else { return false }
        let keys = Set(recipe.options.map(\.key))
        guard keys.isSubset(of: handledOptions), keys.contains("input_format"), keys.contains("video_size"),
              let input = recipe.options.first(where: { $0.key == "input_format" })?.value else { return false }
        return format(named: input) != nil
    }

    init(recipe: InputRecipe, spec: DeviceSpec, interrupt: InterruptFlag) throws {
        func option(_ key: String) -> String? { recipe.options.first { $0.key == key }?.value }
        let inputFormat = option("input_format")!
        let (fourccText, decoderName) = V4L2FrameSource.format(named: inputFormat)!
        guard let size = option("video_size").flatMap(Preset.parseSize) else {
            throw ReelError.invalidInput("\(spec): video_size '\(option("video_size") ?? "")' is not WxH")
        }
        let fps = option("framerate").flatMap(Double.init) ?? 0
        let fourcc = fourccText.utf8.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        var settled = reel_v4l2_format()
        var error: Int32 = 0
        guard let opened = reel_v4l2_stream_open(recipe.url, fourcc, Int32(size.width), Int32(size.height),
                                                 Int32((fps * 1000).rounded()), &settled, &error) else {
            throw V4L2FrameSource.openingError(-error, spec: spec)
        }
        guard settled.fourcc == fourcc else {
            reel_v4l2_stream_close(opened)
            throw ReelError.invalidInput("\(spec) does not deliver \(fourccText) pictures: choose another input_format (reel devices lists its modes)")
        }
        stream = opened
        format = settled
        do {
            decoder = try decoderName.map { try ElementaryDecoder(codecName: $0) }
        } catch {
            reel_v4l2_stream_close(opened)
            throw error
        }
        rawFormat = decoderName == nil ? PixelFormat(name: inputFormat) : nil
        self.interrupt = interrupt
        self.spec = spec
        var stream = SourceStream(index: 0, mediaType: .video, timeBase: sessionTimeBase,
                                  pictureFormat: rawFormat ?? .none, width: Int(settled.width), height: Int(settled.height))
        if decoder != nil {
            // The colour a compressed picture carries (a JPEG's full-range BT.601) is known once one is decoded.
            let first = Frame()
            let giveUp = MonotonicClock.seconds() + DeviceDeadlines.firstFrame
            while true {
                if case .frame = try nextFrame(into: first) { break }
                if MonotonicClock.seconds() > giveUp {
                    throw ReelError.runtime("\(spec) delivered no picture within \(Int(DeviceDeadlines.firstFrame)) s of starting: check the camera")
                }
            }
            stream.pictureFormat = first.pixelFormat
            stream.colour = first.colour
            stream.bitsPerComponent = first.pixelFormat.bitsPerComponent
            pending = first
        }
        streams = [stream]
    }

    deinit { reel_v4l2_stream_close(stream) }

    var startTime: Timestamp? { nil }
    var timestampsMayJump: Bool { false }
    var durationSeconds: Double? { nil }

    /// Waits a little for the next picture (so a stop or a deadline is noticed within 50 ms).
    func nextFrame(into frame: Frame) throws -> FrameRead {
        if let first = pending {
            pending = nil
            try frame.reference(first)
            return .frame(streamIndex: 0)
        }
        if interrupt.isRaised || interrupt.deadlinePassed {
            throw ReelError.runtime("\(spec) was interrupted before its next picture")
        }
        var buffer = reel_v4l2_buffer()
        let result = reel_v4l2_stream_next(stream, 50, &buffer)
        if result == 0 { return .tryAgain }
        if result < 0 {
            let reason = String(cString: strerror(-result))
            throw ReelError.runtime("\(spec) stopped delivering: \(reason)\(result == -ENODEV ? " (unplugged?)" : "")")
        }
        defer { reel_v4l2_stream_release(stream, buffer.index) }
        if let lastSequence {
            let gap = buffer.sequence &- lastSequence &- 1
            if gap > 0 && gap < 1 << 24 { picturesDroppedByDevice += Int(gap) }
        }
        lastSequence = buffer.sequence
        guard buffer.damaged == 0, buffer.size > 0, let data = buffer.data else { return .tryAgain }
        if let decoder {
            // A damaged buffer (a corrupt MJPEG frame) is skipped, as players do.
            guard try decoder.decode(data, count: buffer.size, pts: buffer.timestamp_us, into: frame) else { return .tryAgain }
        } else if let rawFormat {
            try frame.copyPicture(from: data, count: buffer.size, width: Int(format.width), height: Int(format.height),
                                  pixelFormat: rawFormat, bytesPerLine: Int(format.bytes_per_line))
        }
        frame.pts = buffer.timestamp_us
        return .frame(streamIndex: 0)
    }

    /// What a failed open means to a user, as one line with the kind a caller branches on.
    static func openingError(_ code: Int32, spec: DeviceSpec) -> ReelError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return ReelError(.deviceNotFound, "cannot open \(spec): \(reason); \(InputRecipe.cameraHint)")
        case EBUSY:
            return ReelError(.deviceBusy, "cannot open \(spec): \(reason); another program is using the camera: close it or choose another")
        case ENOTTY:
            return ReelError(.invalidInput, "cannot open \(spec): it is not a video capture device (a metadata or output node?); reel devices lists cameras")
        default:
            return ReelError(.invalidInput, "cannot open \(spec): \(reason); \(InputRecipe.cameraHint)")
        }
    }
}
