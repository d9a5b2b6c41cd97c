import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization

/// The running session, on a thread of its own: starts the readers, takes captured items in time order from
/// the CaptureBuffer and hands each to every output that still wants it, sharing the pooled frames (no copy
/// per output). It watches for stalled devices and stop requests, and ends when its inputs end, when it is
/// stopped, or when every output has stopped by itself (a limit).
final class SessionEngine: @unchecked Sendable {
    struct Setup: Sendable {
        /// Seconds a live device may deliver nothing before it counts as lost.
        var deviceTimeout: Double
        /// Unpaced inputs are handed out in strict time order; paced ones as they come.
        var ordered: Bool
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
    /// The readers handing frames on, and what the ones replaced while running left behind: their CPU
    /// stages and dropped pictures (the reader objects, and with them their devices, are let go).
    private let inputs: Locked<(readers: [InputReader], ended: Bool, retiredDrops: Int,
                                retiredClock: (readDecode: Int64, convert: Int64, thread: Int64))>
    private var readers: [InputReader] { inputs.withLock { $0.readers } }
    /// The movies, and whether the session has ended (then it takes no more).
    private let recorders = Locked<(movies: [MovieRecorder], ended: Bool, addedSlots: [ObjectIdentifier: Int])>(([], false, [:]))
    private let photos: PhotoRequests
    private let previews = Locked<(feeds: [PreviewFeed], ended: Bool)>(([], false))
    private let stopRequest = Atomic<Bool>(false)
    /// The camera's control values to give back at the end (with `restoresCameraControls`), grown by changes
    /// made while recording; nil once given back (the session has ended: no more changes).
    private let controlsToRestore: Locked<(path: String, values: [CameraControlSetting.PreviousValue], ended: Bool)>
    private let startedAt: Int64
    private var picturesSeen = 0
    /// The first picture's session time (microseconds), once it came: the live movies' time zero.
    private let firstPictureTime = Atomic<Int64>(-1)
    /// The first-frame stills, once written.
    private(set) var stillWritten: String? = nil

    init(setup: Setup, buffer: CaptureBuffer, readers: [InputReader], photos: PhotoRequests) {
        self.setup = setup
        self.buffer = buffer
        self.inputs = Locked((readers, false, 0, (0, 0, 0)))
        self.photos = photos
        self.startedAt = MonotonicClock.nanoseconds()
        self.controlsToRestore = Locked((setup.controlsToRestore?.path ?? "", setup.controlsToRestore?.values ?? [], false))
    }

    /// Gives a V4L2 camera's controls new values while the session runs (V4L2 takes them from any open file
    /// while streaming). With `restores`, the values they had before the session changed them first are
    /// given back at the end.
    func changeCameraControls(_ settings: [CameraControlSetting], camera spec: DeviceSpec, restores: Bool) throws {
        try controlsToRestore.withLock { state in
            // Under the lock: the end's restoration cannot run between the change and its bookkeeping.
            guard !state.ended else { throw ReelError.runtime("the session has ended: start it before changing \(spec)'s controls") }
            let previous = try CameraControlSetting.apply(settings, to: spec.target, spec: spec)
            guard restores else { return }
            let known = Set(state.values.map(\.id))
            // Changed later, given back first; a control changed before keeps its first value.
            state.path = spec.target
            state.values = previous.filter { !known.contains($0.id) } + state.values
        }
    }

    func requestStop() { stopRequest.store(true, ordering: .releasing) }

    /// Adds a movie output and starts its thread (it opens its encoders there). Before `run`, or while the
    /// session runs: it then takes pictures from the next one on. False once the session has ended.
    @discardableResult
    /// `slots`: the video slots added to the pool for it, given back once it has finished in a session that
    /// runs without a movie of its own (there movies come and go for as long as the session runs).
    func add(_ recorder: MovieRecorder, slots: Int = 0) -> Bool {
        let added = recorders.withLock { state in
            if state.ended { return false }
            state.movies.append(recorder)
            if slots > 0 { state.addedSlots[ObjectIdentifier(recorder)] = slots }
            return true
        }
        if added { recorder.start() }
        return added
    }

    /// Pauses or resumes every movie of the session (see MovieRecorder.setPaused).
    func setPaused(_ paused: Bool) {
        setup.readerFactory.pausedTime.set(paused)
        for recorder in recorders.withLock({ $0.movies }) { recorder.setPaused(paused) }
    }

    /// Adds a live view: from the next picture on, it is offered every picture (it takes a few a second).
    /// A session that has ended closes the preview at once (its stream ends).
    func add(preview: PreviewFeed) {
        let added = previews.withLock { state in
            if !state.ended { state.feeds.append(preview) }
            return !state.ended
        }
        if !added { preview.close() }
    }

    /// Pictures the readers dropped because the pools were full (every output lacks them).
    var readerDrops: Int {
        inputs.withLock { state in
            state.retiredDrops + state.readers.filter { $0.spec.isPaced && $0.carriesVideo }.reduce(0) { $0 + $1.statistics.droppedCount }
        }
    }

    /// Seconds on a live session's timeline now (its movies' time zero is the first picture; pauses not
    /// counted out), or nil before the first picture.
    var timelineNow: Double? {
        let first = firstPictureTime.load(ordering: .acquiring)
        guard first >= 0 else { return nil }
        let now = (MonotonicClock.nanoseconds() - setup.readerFactory.sessionStart) / 1000
        return Double(now - first) / 1e6
    }

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
        inputs.withLock { state in
            guard !state.ended, let position = state.readers.firstIndex(where: { $0 === old }) else { return false }
            new.release()
            state.readers[position] = new
            return true
        }
    }

    /// A replaced reader whose thread has ended: keep its counts, let it (and its device) go.
    func forget(_ retired: InputReader) {
        let clock = retired.stageClock.snapshot
        inputs.withLock { state in
            state.retiredDrops += retired.carriesVideo ? retired.statistics.droppedCount : 0
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
        for reader in readers { reader.start() }
        let ending = handOutUntilEnd()
        let finalReaders = closeInputs()
        for reader in finalReaders { reader.stop() }
        buffer.close()
        photos.cancelAll(ending.message ?? "the session ended (\(ending.reason.rawValue)) before the next picture")
        let feeds = previews.withLock { state in
            state.ended = true
            return state.feeds
        }
        for preview in feeds { preview.close() }
        let all = recorders.withLock { state in
            state.ended = true
            return state.movies
        }
        for recorder in all { recorder.queue.end(ending.reason, message: ending.message) }
        var results = all.map { $0.waitForResult() }
        var leftBehind: String? = nil
        for reader in finalReaders where !reader.join(timeout: 1) {
            leftBehind = "\(reader.spec) did not return from a blocking read; its thread was left behind"
        }
        let restore = controlsToRestore.withLock { state in
            state.ended = true
            return (state.path, state.values)
        }
        if !restore.1.isEmpty { CameraControlSetting.restore(restore.1, to: restore.0) }
        // The readers' stages and the process's total, shared by every output.
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let retiredClock = inputs.withLock { $0.retiredClock }
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
        if !results.isEmpty { results[0].still = stillWritten }
        return (results, ending)
    }

    /// No switch takes over from here on: the readers as they are now are the last.
    private func closeInputs() -> [InputReader] {
        inputs.withLock { state in
            state.ended = true
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
                // Stop the devices; what they already delivered is still handed out below.
                stopping = true
                for reader in closeInputs() { reader.stop() }
            }
            var outputs = recorders.withLock { $0.movies }
            // An atomic load per movie on the way; the lock and the filter only once one is done.
            if setup.runsWithoutMovie && outputs.contains(where: \.isDone) {
                retireFinishedMovies()
                outputs = recorders.withLock { $0.movies }
            }
            if !setup.runsWithoutMovie && !outputs.isEmpty && outputs.allSatisfy(\.isDone) && !photos.arePending {
                // Every output stopped by itself (its limits): nothing more to capture.
                return Ending(reason: .stopped, message: nil)
            }
            switch buffer.next(ordered: setup.ordered && !stopping, timeout: 0.1) {
            case .idle:
                if !stopping, let stalled = stalledDevice(outputs) {
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
                    if picturesSeen == 1 && !setup.stills.isEmpty {
                        do {
                            // The photo comes from the raw first picture (sharper than decoding it back out of H.264).
                            for still in setup.stills { try StillImageWriter.write(item.picture(0), rotation: setup.stillRotation, to: still) }
                            stillWritten = setup.stills[0].path
                        } catch {
                            return Ending(reason: .failed, message: "\(error)")
                        }
                    }
                    photos.serve(item, buffer: buffer)
                    for preview in previews.withLock({ $0.feeds }) { preview.offer(item) }
                }
                for output in outputs where output.wants(type) {
                    buffer.hold(item)
                    var dropped: CapturedItem? = nil
                    if !output.queue.offer(type, item, dropped: &dropped) { buffer.release(type, item.slot) }
                    if let dropped { buffer.release(type, dropped.slot) }
                }
            }
        }
    }

    /// A session without a movie of its own lets go of the movies that have finished, and of the pictures
    /// their pool slots held (they have their results; the session's own result names none of them).
    private func retireFinishedMovies() {
        let finished = recorders.withLock { state -> [(MovieRecorder, Int)] in
            let done = state.movies.filter { $0.result != nil }
            guard !done.isEmpty else { return [] }
            state.movies.removeAll { $0.result != nil }
            return done.map { ($0, state.addedSlots.removeValue(forKey: ObjectIdentifier($0)) ?? 0) }
        }
        for (recorder, slots) in finished {
            // Its thread waits for the end of its queue, which the session's end would otherwise bring.
            recorder.queue.end(.stopped, message: nil)
            if slots > 0 { buffer.removeSlots(.video, count: slots) }
        }
    }

    /// Cameras and audio servers can need seconds to deliver their first frame.
    static let firstFrameTimeout: Double = 10

    /// A live device reader that has delivered nothing for longer than the timeout, unless its stream has
    /// already ended or no output wants its frames any more (their duration limit).
    private func stalledDevice(_ outputs: [MovieRecorder]) -> InputReader? {
        readers.first { reader in
            // The first frame may take longer: cameras and audio servers can need seconds to start.
            let timeout = reader.statistics.deliveredCount == 0 ? max(SessionEngine.firstFrameTimeout, setup.deviceTimeout)
                                                                : setup.deviceTimeout
            let wanted = setup.runsWithoutMovie || photos.arePending
                || outputs.contains { $0.wants(reader.carriesVideo ? .video : .audio) }
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
