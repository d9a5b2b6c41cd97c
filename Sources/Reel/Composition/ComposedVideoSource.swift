import FFmpegCore
import Glibc
import SystemSupport

/// Several video inputs composed into one picture, given to the session as one input's video stream: the
/// session's reader, renditions, movies, live streams, stills and monitors take it as they take a camera.
/// Each input is read on a thread of its own (`CompositionLayer`) and scaled once into its rectangle
/// (`LayerPainter`); at every frame time of the preset's rate the composer draws each input's latest
/// picture, in the layout's stacking order, onto a canvas of the preset's size (ffmpeg's fps-filter rule,
/// as the movie's cadence: a 15 fps camera beside a 30 fps screen shows each of its pictures twice, and
/// nothing waits for it).
///
/// Paced inputs: frames are composed on the clock, stamped with the monotonic time of their tick. An input
/// that delivers nothing for the session's device timeout (or ends) is lost: an event, its rectangle shows a
/// placeholder, and the recording goes on; its next picture brings it back. When every input is lost the
/// composition ends (the session's `deviceLost`). Unpaced inputs are composed on their own timelines, all
/// starting at 0: frame n waits until each input's picture at n/rate is known, and the composition ends once
/// the last input's last picture is over.
///
/// The layout may change between any two frames (`setLayout`).
final class ComposedVideoSource: FrameSource, @unchecked Sendable {
    /// A layer lost (`lost` true) or back.
    struct LayerChange: Sendable {
        var index: Int
        var spec: DeviceSpec
        var lost: Bool
        var reason: String?
    }

    let streams: [SourceStream]
    let startTime: Timestamp? = nil
    let timestampsMayJump = false
    let durationSeconds: Double? = nil
    /// The layers now composed (a switch replaces one); the composer reads them under this lock.
    private let layers: Locked<[CompositionLayer]>
    private let inputCount: Int
    private let shared: Locked<[CompositionLayer.State]>
    private let layout: Locked<VideoLayout>
    private let painters: [LayerPainter]
    private let paced: Bool
    private let frameRate: Double
    private let width: Int
    private let height: Int
    private let canvasColour: ColourDescription
    private let interrupt: InterruptFlag
    private let deviceTimeout: Double
    /// The picture filters each input goes through (a switched-to input too).
    private let filters: String?
    private let changes: Locked<(@Sendable (LayerChange) -> Void)?> = Locked(nil)
    /// The composer's own (the reader thread's): canvases (a canvas still referenced downstream is not drawn
    /// into again), the frame count, the first tick and when the layers started.
    private var canvases: [Frame] = []
    private var frameIndex: Int64 = 0
    private var firstTick: Int64?
    private var startedAt: Int64?
    private var lostShown: [Bool]

    /// `sources`: each input opened (their interrupt flags follow `interrupt`, which stops them all).
    init(inputs: [(spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag)], layout: VideoLayout,
         width: Int, height: Int, frameRate: Double, deviceTimeout: Double, filters: String? = nil, interrupt: InterruptFlag) throws {
        try layout.check(inputs: inputs.count)
        let shared = Locked([CompositionLayer.State](repeating: CompositionLayer.State(), count: inputs.count))
        self.shared = shared
        let made = try inputs.enumerated().map { index, input in
            try CompositionLayer(index: index, spec: input.spec, source: input.source, interrupt: input.interrupt, shared: shared, filters: filters)
        }
        if let silent = made.first(where: { $0.videoStream == nil }) {
            throw ReelError.invalidInput("\(silent.spec) has no video stream")
        }
        layers = Locked(made)
        inputCount = made.count
        self.layout = Locked(layout)
        self.paced = inputs.allSatisfy { $0.spec.isPaced }
        self.frameRate = frameRate
        self.width = width
        self.height = height
        self.deviceTimeout = deviceTimeout
        self.filters = filters
        self.interrupt = interrupt
        let colour = ColourDescription.unspecified.resolved(for: .yuv420p, width: width, height: height)
        canvasColour = colour
        painters = inputs.map { _ in LayerPainter(canvasColour: colour) }
        lostShown = Array(repeating: false, count: inputs.count)
        streams = [SourceStream(index: 0, mediaType: .video, timeBase: Rational(1, 1_000_000), colour: colour,
                                bitsPerComponent: 8, pictureFormat: .yuv420p, width: width, height: height)]
    }

    deinit {
        let current = layers.withLock { $0 }
        for layer in current { layer.stop() }
        shared.withLockNotifying { _ in }
        for layer in current { _ = layer.join(timeout: 1) }
    }

    var specs: [DeviceSpec] { layers.withLock { $0.map(\.spec) } }
    var isPaced: Bool { paced }

    var layoutNow: VideoLayout { layout.withLock { $0 } }

    /// The next frame is composed at the new layout (it places every input: checked here).
    func setLayout(_ new: VideoLayout) throws {
        try new.check(inputs: inputCount)
        layout.withLock { $0 = new }
    }

    /// Where lost and returning inputs are told (the session's events); called on the reader's thread.
    func onLayerChange(_ handler: @escaping @Sendable (LayerChange) -> Void) { changes.withLock { $0 = handler } }

    var picturesDroppedByDevice: Int { layers.withLock { $0.reduce(0) { $0 + $1.picturesDroppedByDevice } } }

    /// Input `index` (from 0) is read from `source` from now on: `first`, a picture already read from it, is
    /// shown from the next frame, and the input it replaces stops (joined for at most a second). Live
    /// compositions only (the caller checks).
    func replaceInput(_ index: Int, spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag, first: Frame) throws {
        let layer = try CompositionLayer(index: index, spec: spec, source: source, interrupt: interrupt, shared: shared, filters: filters)
        let old = layers.withLock { layers in
            defer { layers[index] = layer }
            return layers[index]
        }
        old.retire()
        shared.withLockNotifying { states in
            var state = CompositionLayer.State()
            let now = MonotonicClock.nanoseconds()
            // Shown from the next frame on (any frame time is past 0); the input's own pictures follow by their stamps.
            state.queue.push(first, time: 0, duration: 0)
            state.arrival = now
            state.generation = states[index].generation + 1
            states[index] = state
        }
        layer.start()
        _ = old.join(timeout: 1)
    }

    func nextFrame(into frame: Frame) throws -> FrameRead {
        if startedAt == nil {
            startedAt = MonotonicClock.nanoseconds()
            for layer in layers.withLock({ $0 }) { layer.start() }
        }
        let time: Int64
        if paced {
            guard let tick = try nextTick() else { return .endOfFile }
            time = tick
            shared.withLock { layers in for index in layers.indices { _ = layers[index].queue.advance(to: tick) } }
        } else {
            time = Int64((Double(frameIndex) * 1_000_000 / frameRate).rounded())
            guard try waitForPictures(at: time) else { return .endOfFile }
        }
        frameIndex += 1
        try compose(into: frame, at: time)
        return .frame(streamIndex: 0)
    }

    // MARK: Paced: on the clock

    /// The next frame time (monotonic µs), once its pictures are in (ticks the composer was too late for are
    /// skipped); nil when stopped. Frame times fall half an interval after the first input's pictures (as
    /// stamped when captured), so a camera at the output's rate is shown picture by picture even when its
    /// pictures reach the composer unevenly; each frame is composed half an interval after its time, by when its
    /// pictures have come.
    private func nextTick() throws -> Int64? {
        let interval = 1e6 / frameRate
        guard let first = firstTick else {
            let deadline = startedAt! + Int64(DeviceDeadlines.firstFrame * 1e9)
            var earliest: Int64? = nil
            while !interrupt.isRaised {
                let state = shared.wait(until: { layers -> Int64?? in
                    if let first = layers.first(where: { !$0.queue.waiting.isEmpty }) { return .some(first.queue.waiting[0].time) }
                    return layers.allSatisfy(\.finished) ? .some(nil) : nil
                }, deadline: min(deadline, MonotonicClock.nanoseconds() + 50_000_000))
                if let time = state ?? nil { earliest = time; break }
                if state != nil || MonotonicClock.nanoseconds() >= deadline { try checkLost(allLost: true) }
            }
            guard let earliest, !interrupt.isRaised else { return nil }
            firstTick = earliest + Int64(interval / 2)
            frameIndex = 0
            sleep(until: firstTick! + Int64(interval / 2))
            return interrupt.isRaised ? nil : firstTick
        }
        let now = MonotonicClock.nanoseconds() / 1000
        var due = first + Int64((Double(frameIndex) * interval).rounded())
        if now > due + Int64(interval * 1.5) {
            frameIndex = Int64((Double(now - first) / interval - 0.5).rounded(.down))
            due = first + Int64((Double(frameIndex) * interval).rounded())
        }
        sleep(until: due + Int64(interval / 2))
        return interrupt.isRaised ? nil : due
    }

    /// Sleeps until the monotonic clock reads `micros`.
    private func sleep(until micros: Int64) {
        var until = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
    }

    /// Marks paced layers lost (ended, or silent past the device timeout) and back, telling each change;
    /// throws when every input is lost (or `allLost`).
    private func checkLost(allLost: Bool = false) throws {
        let now = MonotonicClock.nanoseconds()
        let started = startedAt ?? now
        let states = shared.withLock { layers in
            layers.indices.map { index -> (lost: Bool, reason: String?) in
                let state = layers[index]
                let silentFor = Double(now - (state.hasPicture ? state.arrival : started)) / 1e9
                let limit = state.hasPicture ? deviceTimeout : DeviceDeadlines.firstFrame
                if state.finished { return (true, state.ending) }
                if silentFor > limit { return (true, "delivered nothing for \(Int(silentFor.rounded(.down))) s") }
                return (false, nil)
            }
        }
        let handler = changes.withLock { $0 }
        let specs = self.specs
        for (index, state) in states.enumerated() where state.lost != lostShown[index] {
            lostShown[index] = state.lost
            shared.withLock { $0[index].lost = state.lost }
            handler?(LayerChange(index: index, spec: specs[index], lost: state.lost, reason: state.reason))
        }
        if allLost || states.allSatisfy(\.lost) {
            let reasons = specs.indices.map { "\(specs[$0]) \(states[$0].reason ?? "delivered nothing")" }
            throw ReelError.runtime("every video input was lost: " + reasons.joined(separator: "; "))
        }
    }

    // MARK: Unpaced: on the inputs' timelines

    /// Waits until each layer's picture at `time` (µs) is known; false once every layer is over (or stopped).
    private func waitForPictures(at time: Int64) throws -> Bool {
        while !interrupt.isRaised {
            var seen = 0
            let outcome = shared.withLockNotifying { layers -> Bool? in
                seen = layers.reduce(0) { $0 + $1.generation }
                var decided = true
                for index in layers.indices where !layers[index].queue.advance(to: time) { decided = false }
                if layers.allSatisfy({ $0.queue.isOver(at: time) }) { return false }
                return decided ? true : nil
            }
            if let outcome { return outcome }
            _ = shared.wait(until: { layers in layers.reduce(0) { $0 + $1.generation } != seen ? true : nil },
                            deadline: MonotonicClock.nanoseconds() + 50_000_000)
        }
        return false
    }

    // MARK: Drawing

    private func compose(into frame: Frame, at time: Int64) throws {
        if paced { try checkLost() }
        let current = layout.withLock { $0 }
        // References to the pictures to draw, taken under the lock (the scaling happens outside it).
        var lost = [Bool](repeating: false, count: inputCount)
        try shared.withLock { layers in
            for index in layers.indices {
                let state = layers[index]
                lost[index] = state.lost
                let picture = state.queue.current?.picture
                let generation = state.queue.currentSerial
                if let picture, painters[index].needsPicture(generation: generation, placement: current.placements[index]) {
                    try painters[index].take(picture, generation: generation)
                }
            }
        }
        let canvas = try writableCanvas()
        let hd = canvasColour.matrix == .bt709
        let order = current.drawingOrder
        // The background, unless the bottom input covers the whole picture.
        let bottomCovers = order.first.map { !lost[$0] && painters[$0].geometry?.picture == PixelRect(x: 0, y: 0, width: width, height: height) } ?? false
        if !bottomCovers { canvas.fill(x: 0, y: 0, width: width, height: height, luma: 16, cb: 128, cr: 128) }
        for index in order {
            let placement = current.placements[index]
            if lost[index] {
                LayerPainter.paintPlaceholder(into: canvas, placement: placement, hd: hd)
            } else {
                try painters[index].paint(into: canvas, placement: placement)
            }
        }
        canvas.pts = time
        canvas.colour = canvasColour
        canvas.sampleAspectRatio = Rational(1, 1)
        try frame.reference(canvas)
        frame.pointer.pointee.pkt_duration = Int64((1_000_000 / frameRate).rounded())
        frame.pointer.pointee.best_effort_timestamp = time
    }

    /// A canvas no one else references (one still held by a movie or a preview is left alone).
    private func writableCanvas() throws -> Frame {
        if let free = canvases.first(where: \.isWritable) { return free }
        let canvas = Frame()
        try canvas.allocateVideo(width: width, height: height, pixelFormat: .yuv420p)
        canvases.append(canvas)
        return canvas
    }
}
