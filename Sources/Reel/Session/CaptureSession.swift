import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// Records from devices into QuickTime movies, like AVCaptureSession with AVCaptureMovieFileOutputs and an
/// AVCapturePhotoOutput: configure, `start`, receive events, `stop` (or let the limits stop it), read the
/// result; then record again.
///
/// The session owns the inputs, their reader threads and the clock; each movie (the main one and its
/// tiers) is an output with its own encoders, limits and result, on a thread of its own; a `PhotoOutput`
/// takes the next picture on request. `start` opens the devices on the calling thread (it blocks briefly,
/// and throws `ReelError.invalidInput` before anything is written when a device, limit or output path is
/// unusable). Events arrive on the session's threads: keep handlers short.
public final class CaptureSession: Sendable {
    public enum State: Sendable, Equatable {
        case ready
        case recording
        case finished(RecordingResult)

        /// The result, once finished.
        public var result: RecordingResult? {
            if case .finished(let result) = self { return result }
            return nil
        }
    }

    private let state = Locked<State>(.ready)
    private let running = Locked<SessionEngine?>(nil)
    /// What the running session's movies share, to add one (see `addOutput(_ movie:)`).
    private let runningMovies = Locked<(context: MovieContext, buffer: CaptureBuffer, paced: Bool, outputs: [String], plan: OutputPlan)?>(nil)
    private let photoOutputs = Locked<[PhotoOutput]>([])
    private let previewOutputs = Locked<[PreviewOutput]>([])
    /// The running (or last) recording's photo requests, which photo outputs added later attach to.
    private let photoRequests = Locked<PhotoRequests?>(nil)
    /// While `start` opens the inputs: raised by `stop`, it ends a wait for an input (a named pipe without a
    /// writer) and stops the readers.
    private let starting = Locked<InterruptFlag?>(nil)
    /// The running session's input switching, its inputs as they are now, whether it is paused, and the
    /// latest progress of its main movie (for `status`).
    private let switcher = Locked<InputSwitcher?>(nil)
    private let live = Locked<SessionStatus.Live>(SessionStatus.Live())
    private let finishedSignal = Locked<[CheckedContinuation<RecordingResult, Never>]>([])
    private let finishCondition = Condition()

    public init() {}

    /// Where a recording to `outputPath` is written until it is finalized and renamed: a hidden file beside it,
    /// `.NAME.partial` (see PartialName: a name too long for that is shortened and given a hash).
    public static func partialPath(for outputPath: String) -> String { PartialName.path(for: outputPath) }

    public var currentState: State { state.withLock { $0 } }

    /// Starts recording. Throws without writing anything if the configuration cannot work.
    /// A session that finished may start again (a retake), to the same or another output.
    public func start(_ configuration: RecordingConfiguration,
                      events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws {
        try state.withLock { current in
            if current == .recording {
                throw ReelError.invalidInput("this session is already recording; stop it first")
            }
            current = .recording
        }
        let interrupt = InterruptFlag()
        starting.withLock { $0 = interrupt }
        defer { starting.withLock { $0 = nil } }
        do {
            let preparation = try RecordingPreparation(configuration, interrupt: interrupt)
            let live = self.live
            live.withLock { $0 = SessionStatus.Live(video: configuration.video?.description, audio: configuration.audio?.description,
                                                    videoSpec: configuration.video) }
            let (engine, movies) = preparation.makeSession(mainProgress: { progress in
                live.withLock { $0.progress = progress }
                events(.progress(progress))
            }, segmentEvents: events)
            switcher.withLock { $0 = InputSwitcher(engine: engine, factory: preparation.session.readerFactory) }
            for photo in photoOutputs.withLock({ $0 }) { photo.attach(preparation.photos) }
            photoRequests.withLock { $0 = preparation.photos }
            running.withLock { $0 = engine }
            runningMovies.withLock { $0 = (preparation.context, preparation.buffer, preparation.paced, preparation.movies.map(\.outputPath), OutputPlan(configuration)) }
            // A stop that came while the inputs were opening is carried out now.
            if interrupt.isRaised { engine.requestStop() }
            for movie in movies { engine.add(movie) }
            for preview in previewOutputs.withLock({ $0 }) {
                preparation.buffer.addSlots(.video, count: 1)
                engine.add(PreviewFeed(output: preview, rendition: 0, rotation: preparation.context.rotation,
                                                buffer: preparation.buffer, sessionStart: preparation.context.sessionStart))
            }
            // A session without a movie of its own (recordsMovie false) names no output.
            let mainOutput = preparation.movies.first?.outputPath ?? ""
            let startedAt = MonotonicClock.nanoseconds()
            _ = WorkerThread(name: "reel.session") {
                events(.started(output: mainOutput))
                let (results, ending) = engine.run()
                let result = !configuration.recordsMovie ? CaptureSession.sessionResult(ending, configuration: configuration, startedAt: startedAt)
                                             : CaptureSession.combined(results)
                // The event first: whoever waits in finished() or record(events:) has had every event when it
                // returns (a handler should not start the next recording itself: the session is not done yet).
                events(.finished(result))
                self.didFinish(result)
            }
        } catch let error as FFmpegError {
            // An FFmpeg call that failed while opening (an encoder, a decoder): the typed kind with the C call.
            state.withLock { $0 = .ready }
            throw ReelError.ffmpeg(error, while: "cannot start the recording")
        } catch {
            state.withLock { $0 = .ready }
            throw error
        }
    }

    /// Adds a photo output: from the next `start` on (or at once, while recording), `photo.capture(to:)`
    /// takes the next picture. AVCaptureSession's addOutput for an AVCapturePhotoOutput.
    public func addOutput(_ photo: PhotoOutput) {
        photoOutputs.withLock { $0.append(photo) }
        if let requests = photoRequests.withLock({ $0 }) { photo.attach(requests) }
    }

    /// Pauses every movie of the recording (AVCaptureMovieFileOutput's pauseRecording): while paused nothing
    /// is written and the inputs keep running; `resumeRecording()` goes on without a hole in the movies'
    /// timelines (audio and video together, a keyframe at the resume point). The duration limit counts
    /// recorded media, not the paused time. Nothing happens when the session is not recording.
    public func pauseRecording() {
        guard let engine = running.withLock({ $0 }) else { return }
        live.withLock { $0.paused = true }
        engine.setPaused(true)
    }

    public func resumeRecording() {
        guard let engine = running.withLock({ $0 }) else { return }
        live.withLock { $0.paused = false }
        engine.setPaused(false)
    }

    /// Switches the camera or screen while recording (the seeds' front/back button): `spec` is opened (a
    /// camera in the mode that suits the preset) and, once its first picture has arrived, replaces the
    /// current input in every movie without a hole or a timestamp jump; the pictures are scaled and
    /// letterboxed to each movie's size. `nil` records black pictures (the track goes on). Returns once the
    /// new input feeds the movies. Throws `ReelError` (`deviceNotFound`, `deviceBusy`, `invalidInput` ...)
    /// and changes nothing when the input cannot be used: the recording goes on with the old one. Works
    /// while paused, with segments and tiers; live sessions only (devices, paced lavfi).
    public func switchVideo(to spec: DeviceSpec?) throws { try switchInput(.video, to: spec) }

    /// Switches the microphone while recording, as `switchVideo` does the camera: another sample rate or
    /// layout is resampled; `nil` records silence.
    public func switchAudio(to spec: DeviceSpec?) throws { try switchInput(.audio, to: spec) }

    private func switchInput(_ type: MediaType, to spec: DeviceSpec?) throws {
        guard let switcher = switcher.withLock({ $0 }) else {
            throw ReelError.invalidInput("the session is not recording: start it before switching inputs")
        }
        try switcher.switchInput(type, to: spec)
        let name = spec?.description ?? "none"
        live.withLock { state in
            if type == .video {
                state.video = name
                state.videoSpec = spec
            } else {
                state.audio = name
            }
        }
    }

    /// What the session is doing now: its state, inputs, outputs and the main movie's latest progress.
    public var status: SessionStatus {
        let current = live.withLock { $0 }
        let outputs = runningMovies.withLock { $0?.outputs } ?? []
        switch currentState {
        case .ready:
            return SessionStatus(state: .ready, video: nil, audio: nil, outputs: [], progress: nil, result: nil)
        case .recording:
            let engine = running.withLock { $0 }
            let paced = runningMovies.withLock { $0?.paced } ?? false
            return SessionStatus(state: current.paused ? .paused : .recording, video: current.video, audio: current.audio,
                                 outputs: outputs, progress: current.progress, timeline: paced ? engine?.timelineNow : nil,
                                 result: nil)
        case .finished(let result):
            return SessionStatus(state: .finished, video: current.video, audio: current.audio,
                                 outputs: (result.outputs ?? [result]).map(\.output), progress: current.progress, result: result)
        }
    }

    /// Changes the V4L2 camera's controls while recording, as AVCaptureDevice's torch, focus and exposure
    /// modes change live: V4L2 names (`focus_absolute=120`) or the conveniences (`torch=on`, `focus=locked`,
    /// `exposure=manual:0.01`, `white_balance=4500`, `zoom=2`), in order. Throws `ReelError.invalidInput`
    /// naming what the camera offers when a setting cannot be made (the ones before it stay made). With the
    /// configuration's `restoresCameraControls`, the values from before are given back when the session ends.
    public func setCameraControls(_ settings: [CameraControlSetting]) throws {
        guard let engine = running.withLock({ $0 }), let shared = runningMovies.withLock({ $0 }) else {
            throw ReelError.invalidInput("the session is not recording: start it first (or give the controls in the configuration)")
        }
        // The camera recording now (after a switch, the one switched to).
        let current = live.withLock { $0.videoSpec } ?? shared.context.configuration.video
        guard let camera = current, camera.kind == .v4l2 else {
            throw ReelError.invalidInput("camera controls need a V4L2 camera as the video source (v4l2:/dev/videoN)")
        }
        try engine.changeCameraControls(settings, camera: camera, restores: shared.context.configuration.restoresCameraControls)
    }

    /// Adds a live view (see PreviewOutput): from the next `start` on, or at once while recording. Its
    /// `pictures` stream ends when the session does.
    public func addOutput(_ preview: PreviewOutput) {
        previewOutputs.withLock { $0.append(preview) }
        if let engine = running.withLock({ $0 }), let shared = runningMovies.withLock({ $0 }) {
            shared.buffer.addSlots(.video, count: 1)
            engine.add(PreviewFeed(output: preview, rendition: 0, rotation: shared.context.rotation, buffer: shared.buffer,
                                            sessionStart: shared.context.sessionStart))
        }
    }

    /// Adds a movie while the session records: it starts with the next picture (see MovieOutput). Throws
    /// `ReelError.invalidInput` before writing anything when the session is not recording, or the movie's
    /// path or limits cannot work (the same checks as the session's own movies).
    public func addOutput(_ movie: MovieOutput) throws {
        guard let engine = running.withLock({ $0 }), let shared = runningMovies.withLock({ $0 }) else {
            throw ReelError.invalidInput("the session is not recording: start it before adding a movie (a configuration's tiers start with it)")
        }
        let path = URL(fileURLWithPath: movie.outputPath).path
        // The new movie's files against each other's, the session's inputs and what is there.
        let configuration = shared.context.configuration
        var plan = shared.plan, own = OutputPlan()
        own.addMovie(path, segmentation: movie.segmentation, writesHidden: configuration.writingPath != configuration.outputPath,
                     role: "new movie")
        own.inputs = plan.inputs
        try own.check(overwrite: configuration.overwrite)
        plan.names += own.names
        try plan.checkNames()
        let setup = try shared.context.movie(path: path, preset: movie.preset, limits: movie.limits,
                                             segmentation: movie.segmentation, joinsRunningSession: true)
        // The new movie holds pictures of its own (queued, held, being encoded).
        let slots = shared.paced ? MovieRecorder.livePictureQueue + 2 : 2
        shared.buffer.addSlots(.video, count: slots)
        let recorder = MovieRecorder(setup: setup, buffer: shared.buffer, paced: shared.paced,
                                     readerDrops: engine.readerDropCount, progress: { _ in })
        guard engine.add(recorder, slots: slots) else {
            throw ReelError.invalidInput("the session has ended: start it again before adding a movie")
        }
        movie.attach(recorder)
        runningMovies.withLock { $0?.outputs.append(path); $0?.plan = plan }
    }

    /// The result of a session that ran without a movie of its own: how it ended, and nothing recorded.
    static func sessionResult(_ ending: SessionEngine.Ending, configuration: RecordingConfiguration,
                              startedAt: Int64) -> RecordingResult {
        RecordingResult(output: "", stopReason: ending.reason, recordedSuccessfully: false, duration: 0, bytes: 0,
                        videoFrames: 0, droppedFrames: 0, audioSamples: 0, preset: configuration.preset.name,
                        elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
                        videoDevice: configuration.video?.description, audioDevice: configuration.audio?.description,
                        error: ending.message, still: nil, stages: nil)
    }

    /// The main movie's result with every movie's result under `outputs` (main first) when there are tiers.
    static func combined(_ results: [RecordingResult]) -> RecordingResult {
        var main = results[0]
        if results.count > 1 {
            main.outputs = results
            main.outputs![0].still = nil
        }
        return main
    }

    /// Asks the recording to stop; the file is then finalized. Returns at once; `waitUntilFinished()` or
    /// `finished()` give the result.
    public func stop() {
        if let engine = running.withLock({ $0 }) {
            engine.requestStop()
        } else {
            starting.withLock { $0?.raise() }
        }
    }

    /// Starts recording, like `start(_:events:)`, and returns the events as an AsyncStream that ends after
    /// `.finished`, once `currentState` is `.finished` too. A consumer that falls behind never holds up capture or encoding: the stream keeps the
    /// newest 32 events (a burst of progress reports drops the oldest of them; `.finished` is always last).
    public func startStreamingEvents(_ configuration: RecordingConfiguration) throws -> AsyncStream<RecordingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RecordingEvent.self, bufferingPolicy: .bufferingNewest(32))
        do {
            try start(configuration) { event in continuation.yield(event) }
        } catch {
            continuation.finish()
            throw error
        }
        // The stream ends once the session is finished (its state says so), just after the finished event.
        Task.detached { [self] in
            _ = await finished()
            continuation.finish()
        }
        return stream
    }

    /// Blocks the calling thread until the recording has finished (not for use on Swift's cooperative pool).
    @available(*, noasync, message: "use finished() from async code")
    public func waitUntilFinished() -> RecordingResult {
        finishCondition.lock()
        defer { finishCondition.unlock() }
        while true {
            if case .finished(let result) = currentState { return result }
            finishCondition.wait()
        }
    }

    /// Suspends until the recording has finished.
    public func finished() async -> RecordingResult {
        await withCheckedContinuation { continuation in
            let immediate: RecordingResult? = finishedSignal.withLock { waiters in
                if case .finished(let result) = currentState { return result }
                waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// Records with `configuration` until a limit, the input's end or `stop()`; returns the result.
    /// Cancelling the calling task stops the recording, which is finalized as by `stop()` (the result says
    /// `stopped`); a cancellation while the inputs open ends the start with an error, nothing written.
    public func record(_ configuration: RecordingConfiguration,
                       events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) async throws -> RecordingResult {
        try await withTaskCancellationHandler {
            // Opening devices blocks; do it on a thread of its own rather than on Swift's cooperative pool.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                _ = WorkerThread(name: "reel.start") {
                    do {
                        try self.start(configuration, events: events)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            // A cancellation that came while starting: stop now that there is a recording to stop.
            if Task.isCancelled { stop() }
            return await finished()
        } onCancel: {
            self.stop()
        }
    }

    private func didFinish(_ result: RecordingResult) {
        let waiters = finishedSignal.withLock { waiters in
            state.withLock { $0 = .finished(result) }
            defer { waiters.removeAll() }
            return waiters
        }
        finishCondition.lock()
        finishCondition.broadcast()
        finishCondition.unlock()
        running.withLock { $0 = nil }
        runningMovies.withLock { $0 = nil }
        switcher.withLock { $0 = nil }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}

