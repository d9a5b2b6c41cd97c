import FFmpegCore

/// Scales decoded pictures to every rendition the outputs asked for (size, pixel format and colour,
/// tone-mapping HDR first when the ColourPlan says so) into one pooled slot and queues it.
final class VideoFrameSink: FrameSink {
    let mediaType = MediaType.video
    private let buffer: CaptureBuffer
    private let renditions: PictureRenditions
    /// One per rendition, made when the rendition first appears.
    private var scalers: [Scaler] = []
    /// An HDR source is tone-mapped once per picture, before any scaling (every rendition maps it the same way).
    private var toneMapper: ToneMapper? = nil
    private let waitsForEncoder: Bool
    private let statistics: ReaderStatistics
    private var timeLimit: ReaderTimeLimit
    private(set) var isSatisfied = false
    private let firstPicture: FirstPictureTime?

    init(buffer: CaptureBuffer, renditions: PictureRenditions, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil, pausedTime: PausedTime? = nil,
         firstPicture: FirstPictureTime? = nil) throws {
        self.buffer = buffer
        self.firstPicture = firstPicture
        self.renditions = renditions
        self.timeLimit = ReaderTimeLimit(maxDuration: maxDuration, pausedTime: pausedTime)
        self.waitsForEncoder = waitsForEncoder
        self.statistics = statistics
        try addScalers()
    }

    private func addScalers() throws {
        for rendition in renditions.all.dropFirst(scalers.count) {
            if toneMapper == nil { toneMapper = try rendition.colour.makeToneMapper() }
            scalers.append(Scaler(outputWidth: rendition.width, outputHeight: rendition.height,
                                  outputColour: rendition.colour.output))
        }
    }

    func consume(_ frame: Frame, at time: Timestamp) throws {
        if timeLimit.isPast(time) {
            isSatisfied = true
            return
        }
        firstPicture?.note(time)
        if renditions.count != scalers.count { try addScalers() }
        let slot: CaptureSlot
        switch buffer.takeFreeSlot(.video, wait: waitsForEncoder) {
        case .slot(let free): slot = free
        case .closed: return
        case .noneFree:
            // The outputs are behind a live source: drop this picture rather than queue without bound.
            statistics.countDropped()
            return
        }
        do {
            while slot.frames.count < scalers.count { slot.frames.append(Frame()) }
            let picture = try toneMapper?.convert(frame) ?? frame
            for (index, scaler) in scalers.enumerated() {
                try convert(picture, with: scaler, into: slot.frames[index])
            }
        } catch {
            buffer.giveBack(.video, slot)
            throw error
        }
        statistics.countDelivered(picture: true)
        buffer.push(.video, CapturedItem(slot: slot, time: time))
    }

    private func convert(_ picture: Frame, with scaler: Scaler, into target: Frame) throws {
        if scaler.isPassThrough(for: picture) {
            try target.reference(picture)
            target.colour = scaler.outputColour
            return
        }
        if !target.hasBuffers || target.width != scaler.outputWidth || target.height != scaler.outputHeight
            || target.pixelFormat != scaler.outputFormat {
            try target.allocateVideo(width: scaler.outputWidth, height: scaler.outputHeight, pixelFormat: scaler.outputFormat)
        }
        try scaler.scale(picture, into: target)
    }

    func finish() throws {}
}
