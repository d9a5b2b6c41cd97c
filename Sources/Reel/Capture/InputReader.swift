import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization
import SystemSupport

/// Reads one input on its own thread: device reads block, and a slow encoder must never stall a device.
/// Frames of the routed streams are handed, with their session time, to each stream's sink. The reader owns
/// its FrameSource; other threads only raise its interrupt flag and read its statistics and end state.
///
/// A reader opened to replace another while the session runs (a switch, see InputSwitcher) starts `held`:
/// it reads and stamps frames but hands none on until it takes over; the reader it replaces is then
/// `retired`: it hands nothing more on, and its end is not the session's (its streams go on).
final class InputReader: @unchecked Sendable {
    struct Route {
        let stream: SourceStream
        let sink: FrameSink
    }

    /// How the input ended, when it ended by itself.
    struct Ending: Sendable {
        var reason: StopReason
        var message: String?
    }

    let spec: DeviceSpec
    let statistics: ReaderStatistics
    let stageClock = ReaderStageClock()
    private var convertNanoseconds: Int64 = 0
    private let source: FrameSource
    private let routes: [Route]
    private let interrupt: InterruptFlag
    private let buffer: CaptureBuffer
    private let sessionStart: Int64
    private var origin: (first: Timestamp, arrival: Timestamp)? = nil
    private var lastTimes: [Int: Timestamp] = [:]
    private var untimedLead = UntimedLeadingFrames()
    private var continuity: [Int: TimestampContinuity] = [:]
    /// Started once, by the session's thread or a switch's (whichever comes first), joined from either.
    private let thread = Locked<WorkerThread?>(nil)
    /// Frames reach the sinks (false while a switch's new reader waits to take over, and once retired).
    private let publishing: Atomic<Bool>
    private let retired = Atomic<Bool>(false)
    /// How far the reader has come, for other threads (waiters are woken at each step), under one lock.
    private struct Progress {
        /// The first frame was read (handed on or not).
        var readFirstFrame = false
        /// A frame was handed on (after `release`, for a held reader).
        var published = false
        var finished = false
        /// How it ended, published before its streams end.
        var ending: Ending?
    }
    private let progress = Locked(Progress())
    /// The reader thread's own copies of the two steps, so that a frame takes no lock once they are passed.
    private var hasFirstFrame = false
    private var hasPublished = false

    init(spec: DeviceSpec, source: FrameSource, routes: [Route], interrupt: InterruptFlag, buffer: CaptureBuffer,
         sessionStart: Int64, statistics: ReaderStatistics, held: Bool = false) {
        self.publishing = Atomic(!held)
        self.spec = spec
        self.statistics = statistics
        self.source = source
        self.routes = routes
        self.interrupt = interrupt
        self.buffer = buffer
        self.sessionStart = sessionStart
    }

    var carriesVideo: Bool { routes.contains { $0.sink.mediaType == .video } }
    /// The tracks this reader feeds.
    var mediaTypes: Set<MediaType> { Set(routes.map(\.sink.mediaType)) }

    var ending: Ending? { progress.withLock { $0.ending } }

    /// Starts the reader's thread; a reader already started is left as it is.
    func start() {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = WorkerThread(name: "reel.reader.\(spec.kind.rawValue)") { [self] in run() }
        }
    }

    /// Unblocks a pending read; the thread then finishes its sinks and exits.
    func stop() { interrupt.raise() }

    /// A held reader starts handing its frames on (it takes over from the one it replaces).
    func release() { publishing.store(true, ordering: .releasing) }

    /// Replaced: hands nothing more on and stops; its end does not end the session's streams.
    func retire() {
        retired.store(true, ordering: .releasing)
        publishing.store(false, ordering: .releasing)
        interrupt.raise()
    }

    var isRetired: Bool { retired.load(ordering: .acquiring) }

    /// Waits until the first frame has been read, the reader has ended, or `seconds` passed; true once a
    /// frame was read.
    func waitForFirstFrame(seconds: Double) -> Bool {
        waitFor(seconds: seconds) { $0.readFirstFrame }
    }

    /// Waits until the first frame has been handed on (after `release`), the reader has ended, or `seconds`
    /// passed; true once one was.
    func waitForFirstPublished(seconds: Double) -> Bool {
        waitFor(seconds: seconds) { $0.published }
    }

    private func waitFor(seconds: Double, _ reached: (Progress) -> Bool) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        let outcome = progress.wait(until: { state in reached(state) || state.finished ? reached(state) : nil }, deadline: deadline)
        return outcome ?? false
    }

    func join() { thread.withLock { $0 }?.join() }

    /// Waits at most `seconds`; false when the thread is still blocked (in a device read that ignores
    /// FFmpeg's interrupt callback). Such a thread is left to finish on its own: it owns its input and
    /// decoders, and the closed CaptureBuffer no longer takes its frames.
    func join(timeout seconds: Double) -> Bool { thread.withLock { $0 }?.join(timeout: seconds) ?? true }

    /// Seconds since this reader last delivered a frame (or since it started), for stall detection.
    var secondsSinceLastDelivery: Double {
        Double(MonotonicClock.nanoseconds() - statistics.lastDeliveryNanoseconds) / 1e9
    }

    private func run() {
        if DeviceThreadPriority.raises(spec.kind) { DeviceThreadPriority.raiseCurrentThread() }
        let threadStart = CPUClock.threadNanoseconds()
        defer {
            let thread = CPUClock.threadNanoseconds() - threadStart
            stageClock.record(readDecode: thread - convertNanoseconds, convert: convertNanoseconds, thread: thread)
        }
        let frame = Frame()
        var ending: Ending? = nil
        var deviceDrops = 0
        do {
            loop: while !interrupt.isRaised {
                switch try source.nextFrame(into: frame) {
                case .frame(let streamIndex):
                    if source.picturesDroppedByDevice > deviceDrops {
                        statistics.countDropped(source.picturesDroppedByDevice - deviceDrops)
                        deviceDrops = source.picturesDroppedByDevice
                    }
                    guard let route = routes.first(where: { $0.stream.index == streamIndex }) else { continue }
                    let raw = InputReader.rawTime(of: frame)
                    if !spec.isPaced, raw == nil, lastTimes[streamIndex] == nil, try untimedLead.hold(frame, stream: streamIndex) {
                        continue
                    }
                    if untimedLead.isHolding(stream: streamIndex) {
                        // The stream's first timestamp (or a frame past the limit): the held frames go before it.
                        let step = frame.duration > 0 ? frame.duration : nil
                        let placed = raw.map { (time: $0, before: true) } ?? (time: 0, before: false)
                        for (held, time) in untimedLead.release(stream: streamIndex, firstTime: placed.time, step: step, before: placed.before) {
                            try deliver(held, at: sessionTime(of: held, stream: route.stream, raw: time), to: route)
                        }
                    }
                    try deliver(frame, at: sessionTime(of: frame, stream: route.stream), to: route)
                    // Everything wanted is delivered (the duration limit): stop reading, end the streams.
                    if routes.allSatisfy({ $0.sink.isSatisfied }) { break loop }
                case .endOfFile:
                    // A stream that never got a timestamp: its held frames go on from the start.
                    for stream in untimedLead.streams {
                        guard let route = routes.first(where: { $0.stream.index == stream }) else { continue }
                        for (held, time) in untimedLead.release(stream: stream, firstTime: 0, step: nil, before: false) {
                            try deliver(held, at: sessionTime(of: held, stream: route.stream, raw: time), to: route)
                        }
                    }
                    ending = Ending(reason: spec.isDevice ? .deviceLost : .inputEnded,
                                    message: spec.isDevice ? "\(spec) stopped delivering (end of stream)" : nil)
                    break loop
                case .tryAgain:
                    FrameRead.pauseBeforeAskingAgain()
                }
            }
        } catch {
            if !interrupt.isRaised {
                let message = "\(spec): \(error)"
                ending = Ending(reason: spec.kind == .file ? .inputEnded : .deviceLost, message: message)
            }
        }
        defer { progress.withLockNotifying { $0.finished = true } }
        // A retired reader's end is not the session's: the reader that replaced it carries the streams on.
        // Its sinks still pass on what they hold (the last part of an audio block), which the replacement's
        // first samples overlap rather than leave a gap.
        if isRetired {
            for route in routes { try? route.sink.finish() }
            return
        }
        for route in routes {
            do { try route.sink.finish() } catch { ending = ending ?? Ending(reason: .failed, message: "\(error)") }
        }
        // Publish how it ended before announcing the end: the encoder reads it as soon as streams end.
        let finalEnding = ending
        progress.withLockNotifying { $0.ending = finalEnding }
        // A held reader (a switch that never took over) has no streams to end either.
        guard publishing.load(ordering: .acquiring) else { return }
        for route in routes where route.sink.endsStream { buffer.endStream(route.sink.mediaType) }
    }

    /// Device timestamps rebased to the session: the input's first frame maps to the moment it arrived
    /// (paced inputs) or to zero (unpaced inputs, whose clocks all start together). Streams of one input share
    /// that origin, so a file's audio and video keep their offset.
    /// Hands a frame to its sink, unless it is not publishing (a switch's new reader waiting to take over).
    private func deliver(_ frame: Frame, at time: Timestamp, to route: Route) throws {
        if !hasFirstFrame {
            hasFirstFrame = true
            progress.withLockNotifying { $0.readFirstFrame = true }
        }
        guard publishing.load(ordering: .acquiring) else { return }
        let start = CPUClock.threadNanoseconds()
        try route.sink.consume(frame, at: time)
        convertNanoseconds += CPUClock.threadNanoseconds() - start
        if !hasPublished {
            hasPublished = true
            progress.withLockNotifying { $0.published = true }
        }
    }

    /// A frame's own time: decoders set the best-effort time, filter graphs pts only.
    private static func rawTime(of frame: Frame) -> Int64? {
        if frame.bestEffortTimestamp != Timestamp.noValue { return frame.bestEffortTimestamp }
        return frame.pts == Timestamp.noValue ? nil : frame.pts
    }

    /// `raw`: the time it was given (a held leading frame's), else its own.
    private func sessionTime(of frame: Frame, stream: SourceStream, raw given: Int64? = nil) -> Timestamp {
        var raw = given ?? InputReader.rawTime(of: frame) ?? Timestamp.noValue
        if raw == Timestamp.noValue {
            // No timestamp: continue from the last one by the frame's duration (or one tick).
            let last = lastTimes[stream.index]?.value ?? -1
            raw = last + max(frame.duration, 1)
        }
        let timestamp = Timestamp(value: raw, timeBase: stream.timeBase)
        lastTimes[stream.index] = timestamp
        let duration = Timestamp(value: max(0, frame.duration), timeBase: stream.timeBase).rescaled(to: sessionTimeBase).value
        var streamContinuity = continuity[stream.index] ?? TimestampContinuity(gluesForwardJumps: source.timestampsMayJump)
        let micros = Timestamp(value: streamContinuity.continuous(timestamp.rescaled(to: sessionTimeBase).value, duration: duration),
                               timeBase: sessionTimeBase)
        continuity[stream.index] = streamContinuity
        if origin == nil {
            // A file's timeline starts where its earliest stream starts (audio may lead the first picture).
            let first = spec.isPaced ? micros : (source.startTime.map { min($0.rescaled(to: sessionTimeBase), micros) } ?? micros)
            let arrival = spec.isPaced ? MonotonicClock.nanoseconds() - sessionStart : 0
            origin = (first, Timestamp(value: arrival / 1000, timeBase: sessionTimeBase))
        }
        return micros - origin!.first + origin!.arrival
    }
}
