import FFmpegCore

/// Scales decoded pictures to the preset size and pixel format into pooled frames and queues them.
final class VideoFrameSink: FrameSink {
    let mediaType = MediaType.video
    private let buffer: CaptureBuffer
    private let scaler: Scaler
    private let waitsForEncoder: Bool
    private let statistics: ReaderStatistics
    private var timeLimit: ReaderTimeLimit
    private(set) var isSatisfied = false

    init(buffer: CaptureBuffer, width: Int, height: Int, waitsForEncoder: Bool, statistics: ReaderStatistics,
         maxDuration: Double? = nil) {
        self.buffer = buffer
        self.timeLimit = ReaderTimeLimit(maxDuration: maxDuration)
        self.scaler = Scaler(outputWidth: width, outputHeight: height)
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
            if scaler.isPassThrough(for: frame) {
                try target.reference(frame)
            } else {
                if !target.hasBuffers || target.width != scaler.outputWidth || target.height != scaler.outputHeight
                    || target.pixelFormat != scaler.outputFormat {
                    try target.allocateVideo(width: scaler.outputWidth, height: scaler.outputHeight,
                                             pixelFormat: scaler.outputFormat)
                }
                try scaler.scale(frame, into: target)
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
