import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization
import SystemSupport

/// The running session, on a thread of its own: starts the readers, takes captured items in time order from
/// the CaptureBuffer and hands each to every output that still wants it (`SessionOutput`: movies, photos,
/// previews, first-frame stills, in the order they were added), sharing the pooled frames (no copy per
/// output). It watches for stalled devices and stop requests, and ends when its inputs end, when it is
/// stopped, or when every movie has stopped by itself (a limit).
final class SessionEngine: @unchecked Sendable {
    struct Setup: Sendable {
        /// Seconds a live device may deliver nothing before it counts as lost.
        var deviceTimeout: Double
        /// Unpaced inputs are handed out in strict time order (`.byTime`); paced ones as they come.
        var order: CaptureBuffer.Order
        var hasVideo: Bool
        /// Pictures of the first frame (at rendition 0, turned upright by `stillRotation`).
        var stills: [StillRequest]
        var stillRotation: DisplayTurn
        /// A camera's control values to give back when the session ends (`restoresCameraControls`).
        var controlsToRestore: (path: String, values: [CameraControlSetting.PreviousValue])?
        /// Makes the readers of inputs that replace the session's while it runs.
        var readerFactory: ReaderFactory
        /// The session runs without a movie of its own (RecordingConfiguration.recordsMovie false): it goes on
        /// until stopped, and a device that stops delivering ends it whether or not a movie is being recorded.
        var runsWithoutMovie = false
    }

    /// How the session ended, for every output that had not stopped by itself.
    struct Ending: Sendable {
        var reason: StopReason
        var message: String?
    }

    private let setup: Setup
    private let buffer: CaptureBuffer

    /// How far the session's end has come; each step refuses more, in this order.
    enum Phase: Int, Comparable {
        case running
        /// No switch takes over any more: the readers as they are are the last (a stop, or the end).
        case inputsClosed
        /// No output is added any more; the outputs are being ended.
        case outputsClosed
        /// The camera's controls were given back: no more changes.
        case ended

        static func < (a: Phase, b: Phase) -> Bool { a.rawValue < b.rawValue }
    }

    /// Everything the engine shares between threads, under one lock.
    private struct State {
        var phase = Phase.running
        /// The readers handing frames on.
        var readers: [InputReader]
        /// What readers replaced while running left behind: their dropped pictures and CPU stages (the reader
        /// objects, and with them their devices, are let go).
        var retiredDrops = 0
        var retiredClock: (readDecode: Int64, convert: Int64, thread: Int64) = (0, 0, 0)
        /// The outputs in the order they were added.
        var outputs: [any SessionOutput]
        /// The pool slots added for outputs that give them back when they finish.
        var addedSlots: [ObjectIdentifier: Int] = [:]
        /// The camera's control values to give back at the end (with `restoresCameraControls`), grown by
        /// changes made while recording.
        var controlsPath: String
        var controlsToRestore: [CameraControlSetting.PreviousValue]
        /// Control changes being applied (off the lock: a device's ioctl must not hold up the session thread);
        /// the end waits for them before it gives the values back.
        var controlChanges = 0

        var readerDrops: Int {
            retiredDrops + readers.filter { $0.spec.isPaced && $0.carriesVideo }.reduce(0) { $0 + $1.statistics.droppedCount }
        }
        var retiredPictures = 0
        /// Pictures the readers handed on since the start (replaced readers' included).
        var capturedPictures: Int { retiredPictures + readers.reduce(0) { $0 + $1.statistics.pictureCount } }
    }
    private let state: Locked<State>
    private var readers: [InputReader] { state.withLock { $0.readers } }
    private let stopRequest = Atomic<Bool>(false)
    private let startedAt: Int64
    private var picturesSeen = 0
    /// The first picture's session time (microseconds), once it came: the live movies' time zero.
    private let firstPictureTime = Atomic<Int64>(-1)
    init(setup: Setup, buffer: CaptureBuffer, readers: [InputReader], photos: PhotoRequests) {
        self.setup = setup
        self.buffer = buffer
        let stills: [any SessionOutput] = setup.stills.isEmpty ? [] : [FirstFrameStills(setup.stills, rotation: setup.stillRotation)]
        state = Locked(State(readers: readers, outputs: stills + [photos], controlsPath: setup.controlsToRestore?.path ?? "",
                             controlsToRestore: setup.controlsToRestore?.values ?? []))
        self.startedAt = MonotonicClock.nanoseconds()
    }

    /// Gives a V4L2 camera's controls new values while the session runs (V4L2 takes them from any open file
    /// while streaming). With `restores`, the values they had before the session changed them first are
    /// given back at the end.
    func changeCameraControls(_ settings: [CameraControlSetting], camera spec: DeviceSpec, restores: Bool) throws {
        try state.withLock { state in
            guard state.phase < .ended else { throw ReelError.runtime("the session has ended: start it before changing \(spec)'s controls") }
            state.controlChanges += 1
        }
        // Counted as under way: the end's restoration waits until the change and its bookkeeping are done.
        let previous: [CameraControlSetting.PreviousValue]
        do {
            previous = try CameraControlSetting.apply(settings, to: spec.target, spec: spec)
        } catch {
            state.withLockNotifying { $0.controlChanges -= 1 }
            throw error
        }
        state.withLockNotifying { state in
            state.controlChanges -= 1
            guard restores else { return }
            let known = Set(state.controlsToRestore.map(\.id))
            // Changed later, given back first; a control changed before keeps its first value.
            state.controlsPath = spec.target
            state.controlsToRestore = previous.filter { !known.contains($0.id) } + state.controlsToRestore
        }
    }

    func requestStop() { stopRequest.store(true, ordering: .releasing) }

    /// Adds an output and starts it (a movie opens its encoders on its own thread). Before `run`, or while
    /// the session runs: it then takes items from the next one on. False once the session has ended (a
    /// preview then ends at once: its stream ends). `slots`: the video slots added to the pool for it, given
    /// back once a movie has finished in a session that runs without a movie of its own (there movies come
    /// and go for as long as the session runs).
    @discardableResult
    func add(_ output: any SessionOutput, slots: Int = 0) -> Bool {
        let added = state.withLock { state in
            if state.phase >= .outputsClosed { return false }
            state.outputs.append(output)
            if slots > 0 { state.addedSlots[ObjectIdentifier(output)] = slots }
            return true
        }
        if added { output.start() } else { output.end(Ending(reason: .stopped, message: "the session has ended")) }
        return added
    }

    /// Pauses or resumes every output of the session (see MovieRecorder.setPaused).
    func setPaused(_ paused: Bool) {
        setup.readerFactory.pausedTime.set(paused)
        for output in state.withLock({ $0.outputs }) { output.setPaused(paused) }
    }

    /// The outputs it hands items to now (for the tests: a finished one is let go).
    var outputCount: Int { state.withLock { $0.outputs.count } }

    /// Pictures the readers dropped because the pools were full (every output lacks them).
    var readerDrops: Int { state.withLock { $0.readerDrops } }

    /// The same count for a movie to read at its end. The state holds the movie (its outputs), so the count
    /// holds the state weakly: a strong reference would keep every movie, and the state, alive for ever.
    var readerDropCount: @Sendable () -> Int {
        { [weak state] in state?.withLock { $0.readerDrops } ?? 0 }
    }

    /// Seconds on a live session's timeline now (its movies' time zero is the first picture; pauses not
    /// counted out; a session without pictures keeps its clock's zero), or nil before the first picture.
    var timelineNow: Double? {
        let first = firstPictureTime.load(ordering: .acquiring)
        guard first >= 0 || !setup.readerFactory.hasVideo else { return nil }
        let now = (MonotonicClock.nanoseconds() - setup.readerFactory.sessionStart) / 1000
        return Double(now - max(0, first)) / 1e6
    }

    /// Where the timeline starts on the session clock (seconds): its first picture, or 0 without one yet (a
    /// session without pictures keeps the clock's own zero). Levels and alarms are given on the timeline.
    var timelineOrigin: Double {
        let first = firstPictureTime.load(ordering: .acquiring)
        return first >= 0 ? Double(first) / 1e6 : 0
    }

    /// Pictures captured and handed on by the readers since the start.
    var capturedPictures: Int { state.withLock { $0.capturedPictures } }

    /// Whether the session records a track of this type.
    func hasTrack(_ type: MediaType) -> Bool { readers.contains { $0.mediaTypes.contains(type) } }

    /// The reader carrying a track, if one alone does (a file feeding both tracks cannot be switched).
    func reader(carrying type: MediaType) -> InputReader? {
        readers.first { $0.mediaTypes == [type] }
    }

    /// A held reader (see InputSwitcher) takes over from `old`: it hands its frames on from now and is one
    /// of the session's readers; `old` goes on until the switcher retires it (once the new one's first frame
    /// is out: a frame of both at the switch is better than a hole between them). False (nothing changed)
    /// when the session has ended or `old` is no longer one of its readers.
    func replace(_ old: InputReader, with new: InputReader) -> Bool {
        state.withLock { state in
            guard state.phase == .running, let position = state.readers.firstIndex(where: { $0 === old }) else { return false }
            new.release()
            state.readers[position] = new
            return true
        }
    }

    /// A replaced reader whose thread has ended: keep its counts, let it (and its device) go.
    func forget(_ retired: InputReader) {
        let clock = retired.stageClock.snapshot
        state.withLock { state in
            state.retiredDrops += retired.carriesVideo ? retired.statistics.droppedCount : 0
            state.retiredPictures += retired.statistics.pictureCount
            state.retiredClock.readDecode += clock.readDecode
            state.retiredClock.convert += clock.convert
            state.retiredClock.thread += clock.thread
        }
    }

    /// Runs the session to its end, finalizes every output and returns their results in the order they were
    /// added, with why the session ended. Call on the session's own thread.
    func run() -> (results: [RecordingResult], ending: Ending) {
        let threadStart = CPUClock.threadNanoseconds()
        let processStart = CPUClock.processNanoseconds()
        // Under the state's lock: a switch that replaces a reader meanwhile (from the control socket, as the
        // session starts) does so before or after, never between; a reader it already started is left so.
        state.withLock { state in for reader in state.readers { reader.start() } }
        let ending = handOutUntilEnd()
        let finalReaders = closeInputs()
        for reader in finalReaders { reader.stop() }
        buffer.close()
        let all = state.withLock { state in
            state.phase = .outputsClosed
            return state.outputs
        }
        for output in all { output.end(ending) }
        var results = all.compactMap { $0.waitForResult() }
        var leftBehind: String? = nil
        for reader in finalReaders where !reader.join(timeout: 1) {
            leftBehind = "\(reader.spec) did not return from a blocking read; its thread was left behind"
        }
        let restore = state.wait { state -> (String, [CameraControlSetting.PreviousValue])? in
            guard state.controlChanges == 0 else { return nil }
            state.phase = .ended
            return (state.controlsPath, state.controlsToRestore)
        }
        if !restore.1.isEmpty { CameraControlSetting.restore(restore.1, to: restore.0) }
        // The readers' stages and the process's total, shared by every output.
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let retiredClock = state.withLock { $0.retiredClock }
        let readerClocks = finalReaders.map(\.stageClock.snapshot) + [retiredClock]
        let process = CPUClock.processNanoseconds() - processStart
        let ownThreads = (CPUClock.threadNanoseconds() - threadStart) + readerClocks.reduce(0) { $0 + $1.thread }
            + all.reduce(0) { $0 + $1.ownThreadNanoseconds }
        for index in results.indices {
            results[index].stages?.readDecode = seconds(readerClocks.reduce(0) { $0 + $1.readDecode })
            results[index].stages?.convert = seconds(readerClocks.reduce(0) { $0 + $1.convert })
            results[index].stages?.codecThreads = seconds(max(0, process - ownThreads))
            results[index].stages?.total = seconds(process)
            if results[index].error == nil, let leftBehind { results[index].error = leftBehind }
        }
        for output in all { output.annotate(&results) }
        return (results, ending)
    }

    /// No switch takes over from here on: the readers as they are now are the last.
    private func closeInputs() -> [InputReader] {
        state.withLock { state in
            state.phase = max(state.phase, .inputsClosed)
            return state.readers
        }
    }

    private func handOutUntilEnd() -> Ending {
        var stopping = false
        while true {
            // A stop before the first picture waits for it (up to two seconds), so even the shortest press
            // yields a photo and a playable movie.
            let hasFirstPicture = picturesSeen > 0 || !setup.hasVideo
                || MonotonicClock.nanoseconds() - startedAt > 2_000_000_000
            if !stopping && hasFirstPicture && stopRequest.load(ordering: .acquiring) {
                // Stop the devices; what they already delivered is still handed out below (of unpaced inputs,
                // up to where the first stream runs dry: what a reader ran ahead by is not handed out).
                stopping = true
                if setup.order == .byTime { buffer.endStreamsTogether() }
                for reader in closeInputs() { reader.stop() }
            }
            var current = state.withLock { $0.outputs }
            // An atomic load or two per output on the way; the lock and the filter only once a movie is done.
            var movies = 0, moviesDone = 0, waiting = false, retirable = false
            for output in current {
                if output.role == .finite {
                    movies += 1
                    if output.isDone { moviesDone += 1 }
                }
                // (A shared encoder whose last movie left is done too, after its movies.)
                if output.isDone && !retirable { retirable = output.hasFinishedByItself }
                if output.isWaiting { waiting = true }
            }
            if setup.runsWithoutMovie && retirable {
                retireFinishedMovies()
                current = state.withLock { $0.outputs }
            }
            if !setup.runsWithoutMovie && movies > 0 && moviesDone == movies && !waiting {
                // Every movie stopped by itself (its limits): nothing more to capture.
                return Ending(reason: .stopped, message: nil)
            }
            switch buffer.next(setup.order, timeout: 0.1) {
            case .idle:
                if !stopping, let stalled = stalledDevice(current) {
                    // A device that stops delivering (unplugged, its server frozen) ends the session.
                    return Ending(reason: .deviceLost,
                                  message: "\(stalled.spec) delivered nothing for \(String(printf: "%g", setup.deviceTimeout)) s")
                }
            case .allEnded:
                return stopping ? Ending(reason: .stopped, message: nil) : endingReason()
            case .item(let type, let item):
                defer { buffer.release(type, item.slot) }
                if type == .video {
                    picturesSeen += 1
                    if picturesSeen == 1 { firstPictureTime.store(item.time.rescaled(to: sessionTimeBase).value, ordering: .releasing) }
                }
                for output in current where output.wants(type) {
                    do {
                        try output.take(type, item, buffer: buffer)
                    } catch {
                        return Ending(reason: .failed, message: "\(error)")
                    }
                }
            }
        }
    }

    /// A session without a movie of its own lets go of the movies that have finished (they have their
    /// results; the session's own result names none of them), and of the encoders their last movie left, and
    /// of the pictures their pool slots held.
    private func retireFinishedMovies() {
        let finished = state.withLock { state -> [(any SessionOutput, Int)] in
            let done = state.outputs.filter(\.hasFinishedByItself)
            guard !done.isEmpty else { return [] }
            let gone = Set(done.map { ObjectIdentifier($0) })
            state.outputs.removeAll { gone.contains(ObjectIdentifier($0)) }
            return done.map { ($0, state.addedSlots.removeValue(forKey: ObjectIdentifier($0)) ?? 0) }
        }
        for (movie, slots) in finished {
            // Its thread waits for the end of its queue, which the session's end would otherwise bring.
            movie.end(Ending(reason: .stopped, message: nil))
            if slots > 0 { buffer.removeSlots(.video, count: slots) }
        }
    }

    /// A live device reader that has delivered nothing for longer than the timeout, unless its stream has
    /// already ended or no output wants its frames any more (their duration limit).
    private func stalledDevice(_ outputs: [any SessionOutput]) -> InputReader? {
        readers.first { reader in
            // The first frame may take longer: cameras and audio servers can need seconds to start.
            let timeout = reader.statistics.deliveredCount == 0 ? max(DeviceDeadlines.firstFrame, setup.deviceTimeout)
                                                                : setup.deviceTimeout
            let type: MediaType = reader.carriesVideo ? .video : .audio
            let wanted = setup.runsWithoutMovie || outputs.contains { $0.isWaiting || ($0.role != .companion && $0.wants(type)) }
            return reader.spec.isDevice && reader.secondsSinceLastDelivery > timeout && reader.ending == nil && wanted
        }
    }

    /// Why the inputs ended by themselves: a lost device outranks a finished file.
    private func endingReason() -> Ending {
        let endings = readers.compactMap(\.ending)
        if let lost = endings.first(where: { $0.reason == .deviceLost || $0.reason == .failed }) {
            return Ending(reason: lost.reason, message: lost.message)
        }
        return Ending(reason: .inputEnded, message: nil)
    }
}
