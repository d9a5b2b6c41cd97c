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
    /// Picture filters (deinterlace ...) at the source's size, then the overlays at the capture's.
    private let filters: PictureFilter?
    private let effects: PictureEffects?

    init(buffer: CaptureBuffer, renditions: PictureRenditions, waitsForEncoder: Bool,
         statistics: ReaderStatistics, maxDuration: Double? = nil, pausedTime: PausedTime? = nil,
         firstPicture: FirstPictureTime? = nil, filters: PictureFilter? = nil, effects: PictureEffects? = nil) throws {
        self.buffer = buffer
        self.filters = filters
        self.effects = effects
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

    func consume(_ frame: Frame, at captured: Timestamp) throws {
        var time = captured
        var frame = frame
        if let filters {
            // A filter that looks ahead (the deinterlacer) gives its pictures a step late, with their own times.
            frame.pts = time.rescaled(to: sessionTimeBase).value
            guard let filtered = try filters.filter(frame) else { return }
            frame = filtered
            time = Timestamp(value: filtered.pts, timeBase: sessionTimeBase)
        }
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
            var picture = try toneMapper?.convert(frame) ?? frame
            if let effects {
                let since = time.rescaled(to: sessionTimeBase).value - (firstPicture?.micros ?? time.rescaled(to: sessionTimeBase).value)
                picture = try effects.draw(on: picture, at: since)
            }
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
