import FFmpegCore

/// Scales decoded pictures to the preset size, pixel format and the output's colour (tone-mapping HDR first,
/// when the ColourPlan says so) into pooled frames and queues them.
final class VideoFrameSink: FrameSink {
    let mediaType = MediaType.video
    private let buffer: CaptureBuffer
    private let scaler: Scaler
    private let toneMapper: ToneMapper?
    private let waitsForEncoder: Bool
    private let statistics: ReaderStatistics
    private var timeLimit: ReaderTimeLimit
    private(set) var isSatisfied = false

    init(buffer: CaptureBuffer, width: Int, height: Int, colour: ColourPlan, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil) throws {
        self.buffer = buffer
        self.timeLimit = ReaderTimeLimit(maxDuration: maxDuration)
        self.scaler = Scaler(outputWidth: width, outputHeight: height, outputColour: colour.output)
        self.toneMapper = try colour.makeToneMapper()
        self.waitsForEncoder = waitsForEncoder
        self.statistics = statistics
    }

    func consume(_ frame: Frame, at time: Timestamp) throws {
        if timeLimit.isPast(time) {
            isSatisfied = true
            return
        }
        let target: Frame
        switch buffer.takeFreeFrame(.video, wait: waitsForEncoder) {
        case .frame(let frame): target = frame
        case .closed: return
        case .noneFree:
            // The encoder is behind a live source: drop this picture rather than queue without bound.
            statistics.countDropped()
            return
        }
        do {
            let picture = try toneMapper?.convert(frame) ?? frame
            if scaler.isPassThrough(for: picture) {
                try target.reference(picture)
                target.colour = scaler.outputColour
            } else {
                if !target.hasBuffers || target.width != scaler.outputWidth || target.height != scaler.outputHeight
                    || target.pixelFormat != scaler.outputFormat {
                    try target.allocateVideo(width: scaler.outputWidth, height: scaler.outputHeight,
                                             pixelFormat: scaler.outputFormat)
                }
                try scaler.scale(picture, into: target)
            }
        } catch {
            buffer.giveBack(.video, target)
            throw error
        }
        statistics.countDelivered()
        buffer.push(.video, CapturedItem(frame: target, time: time))
    }

    func finish() throws {}
}
