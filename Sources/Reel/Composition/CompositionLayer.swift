import FFmpegCore
import Glibc
import Synchronization
import SystemSupport

/// One video input of a composition, read on a thread of its own (a device read blocks, and one input must
/// never hold up another). A paced input (camera, screen) keeps only its latest picture, replaced as the next
/// arrives; an unpaced one (file, lavfi with realtime=0) queues a few on its own timeline (`LayerQueue`) and
/// waits while they are not yet composed. The layer owns its FrameSource; the composer takes references to its
/// pictures under the composition's lock (`ComposedVideoSource.Shared`).
final class CompositionLayer: @unchecked Sendable {
    /// What the composer reads of a layer, under the composition's lock.
    struct State {
        /// Its pictures by time: µs on the monotonic clock (paced) or from its first picture (unpaced).
        var queue = LayerQueue<Frame>()
        /// When the last picture arrived (monotonic ns), for the lost check.
        var arrival: Int64 = 0
        /// Changes with each picture and with the end (what the composer waits on).
        var generation = 0
        /// Why the layer stopped delivering (end of file, a device's error), once it has.
        var ending: String?
        var finished = false
        /// Shown as lost (stalled past the device timeout, or ended while paced); cleared by a new picture.
        var lost = false

        var hasPicture: Bool { queue.current != nil || !queue.waiting.isEmpty }
    }

    let index: Int
    let spec: DeviceSpec
    private let source: FrameSource
    private let interrupt: InterruptFlag
    private let shared: Locked<[State]>
    private let paced: Bool
    private var thread: WorkerThread?
    /// Replaced by another input (a switch): it writes nothing more into the shared state.
    private let retired = Atomic<Bool>(false)
    /// The reader thread's own: where its timeline starts, and the last time given.
    private var origin: Int64?
    private var lastTime: Int64 = -1
    private var continuity = TimestampContinuity(gluesForwardJumps: false)
    /// Paced: what is added to the timeline to put it on the monotonic clock.
    private var liveOrigin: Int64?

    /// The picture filters (deinterlace ...) this input's pictures go through before they are composed.
    private let filters: PictureFilter?

    init(index: Int, spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag, shared: Locked<[State]>,
         filters: String? = nil) throws {
        self.filters = try filters.map { try PictureFilter($0, timeBase: source.stream(of: .video)?.timeBase ?? Rational(1, 1_000_000)) }
        self.index = index
        self.spec = spec
        self.source = source
        self.interrupt = interrupt
        self.shared = shared
        self.paced = spec.isPaced
        continuity = TimestampContinuity(gluesForwardJumps: source.timestampsMayJump)
    }

    var videoStream: SourceStream? { source.stream(of: .video) }
    var picturesDroppedByDevice: Int { source.picturesDroppedByDevice }

    func start() {
        thread = WorkerThread(name: "reel.layer.\(index + 1)") { [self] in run() }
    }

    func stop() { interrupt.raise() }

    /// Another layer takes this one's place: nothing more from it reaches the composition.
    func retire() {
        retired.store(true, ordering: .releasing)
        interrupt.raise()
    }

    private var isRetired: Bool { retired.load(ordering: .acquiring) }

    /// Waits at most `seconds` (a device read that ignores the interrupt is left to return on its own: the
    /// layer owns its input).
    func join(timeout seconds: Double) -> Bool { thread?.join(timeout: seconds) ?? true }

    private func run() {
        var ending: String? = nil
        // Frames to read into: one the composition still references is left alone (a camera's copied
        // picture would otherwise be copied again to be made writable).
        var frames: [Frame] = []
        do {
            loop: while !interrupt.isRaised {
                let incoming = frames.first { !$0.hasBuffers || $0.isWritable } ?? { frames.append(Frame()); return frames.last! }()
                switch try source.nextFrame(into: incoming) {
                case .frame(let streamIndex):
                    guard streamIndex == videoStream?.index else { continue }
                    let picture = Frame()
                    if let filters {
                        // A filter that looks ahead (the deinterlacer) gives a picture a step late, with its time.
                        if incoming.pts == Timestamp.noValue { incoming.pts = incoming.bestEffortTimestamp }
                        guard let filtered = try filters.filter(incoming) else { continue }
                        try picture.reference(filtered)
                        picture.pointer.pointee.best_effort_timestamp = filtered.pts
                    } else {
                        try picture.reference(incoming)
                    }
                    incoming.unref()
                    let arrival = MonotonicClock.nanoseconds()
                    let (time, duration) = paced ? stamp(of: picture, arrival: arrival) : timeline(of: picture)
                    if paced {
                        shared.withLockNotifying { layers in
                            guard !isRetired else { return }
                            layers[index].queue.pushDroppingOldest(picture, time: time, duration: duration)
                            layers[index].arrival = arrival
                            layers[index].generation += 1
                        }
                    } else {
                        // A layer that is ahead waits for the composition (bounded waits: a stop wakes it).
                        while !interrupt.isRaised {
                            let queued = shared.wait(until: { layers -> Bool? in
                                guard !layers[index].queue.isFull else { return nil }
                                layers[index].queue.push(picture, time: time, duration: duration)
                                layers[index].generation += 1
                                return true
                            }, deadline: MonotonicClock.nanoseconds() + 50_000_000)
                            if queued != nil { break }
                        }
                        shared.withLockNotifying { _ in }
                    }
                case .endOfFile:
                    ending = spec.isDevice ? "stopped delivering (end of stream)" : "ended"
                    break loop
                case .tryAgain:
                    FrameRead.pauseBeforeAskingAgain()
                }
            }
        } catch {
            if !interrupt.isRaised { ending = "\(error)" }
        }
        let finalEnding = ending ?? "stopped"
        shared.withLockNotifying { layers in
            guard !isRetired else { return }
            layers[index].ending = finalEnding
            layers[index].finished = true
            layers[index].generation += 1
            layers[index].queue.end()
        }
    }

    /// A live picture's capture time on the monotonic clock (µs): its first picture's arrival, then its own
    /// timestamps' steps (a device's stamps are steadier than when a thread got to them). Anchored again to
    /// the arrival when the stamps would put a picture after its arrival or over a quarter second before it
    /// (a device clock that drifts or jumps).
    private func stamp(of frame: Frame, arrival: Int64) -> (time: Int64, duration: Int64) {
        let (raw, duration) = timeline(of: frame)
        let arrived = arrival / 1000
        var time = raw + (liveOrigin ?? arrived - raw)
        if time > arrived || time < arrived - 250_000 {
            time = arrived
        }
        liveOrigin = time - raw
        return (time, duration)
    }

    /// An unpaced picture's time and duration in µs from the layer's first picture.
    private func timeline(of frame: Frame) -> (time: Int64, duration: Int64) {
        let timeBase = videoStream?.timeBase ?? Rational(1, 1_000_000)
        let raw = frame.bestEffortTimestamp != Timestamp.noValue ? frame.bestEffortTimestamp
            : frame.pts != Timestamp.noValue ? frame.pts : nil
        let duration = Timestamp(value: max(0, frame.duration), timeBase: timeBase).rescaled(to: sessionTimeBase).value
        var micros = raw.map { Timestamp(value: $0, timeBase: timeBase).rescaled(to: sessionTimeBase).value }
            ?? (lastTime + max(duration, 1))
        micros = continuity.continuous(micros, duration: duration)
        let start = origin ?? micros
        origin = start
        lastTime = micros
        return (micros - start, duration)
    }
}
