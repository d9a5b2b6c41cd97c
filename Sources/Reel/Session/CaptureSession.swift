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

    /// Everything the session's threads share, under one lock: what it is doing (`Phase`), its outputs, and
    /// what `status` reports. Read and changed together, so `status` is one consistent picture.
    struct Shared {
        var phase = Phase.ready
        var photoOutputs: [PhotoOutput] = []
        var previewOutputs: [PreviewOutput] = []
        /// Movies added while the session was not running: they start with the next `start`.
        var pendingMovies: [MovieOutput] = []
        /// The running (or last) recording's photo requests, which photo outputs added later attach to.
        var photoRequests: PhotoRequests? = nil
        /// Its inputs as they are now, whether it is paused, and the latest progress of its main movie.
        var live = SessionStatus.Live()
        var finishWaiters: [CheckedContinuation<RecordingResult, Never>] = []
        /// The recording's replay buffers (the configuration's, then those added while it runs).
        var replayBuffers: [ReplayBuffer] = []
        /// A triggered recording's events and movies.
        var triggerSchedule: TriggerSchedule?

        var state: State {
            switch phase {
            case .ready: .ready
            case .starting, .recording: .recording
            case .finished(let result): .finished(result)
            }
        }

        var running: Running? {
            if case .recording(let running) = phase { return running }
            return nil
        }
    }

    enum Phase {
        case ready
        /// `start` opens the inputs: `stop` raises the flag, which ends a wait for an input (a named pipe
        /// without a writer) and stops the readers.
        case starting(InterruptFlag)
        case recording(Running)
        case finished(RecordingResult)
    }

    /// The running session: its engine, input switching, and what a movie added while it runs shares.
    struct Running {
        var engine: SessionEngine
        var switcher: InputSwitcher
        var context: MovieContext
        var buffer: CaptureBuffer
        var paced: Bool
        /// The movies' output paths (main first) and every name they write, to check a movie added later.
        var outputs: [String]
        var plan: OutputPlan
        /// The session's own movie (nil when it records none): live streams added while it runs join it.
        var mainMovie: MovieRecorder?
        /// Where outputs report segment and live-stream events (the session's event callback, status).
        var outputEvents: @Sendable (RecordingEvent) -> Void
        /// The composed picture, when the session has several video inputs (or a layout).
        var composition: ComposedVideoSource?
    }

    let shared = Locked(Shared())

    public init() {}

    /// Where a recording to `outputPath` is written until it is finalized and renamed: a hidden file beside it,
    /// `.NAME.partial` (see PartialName: a name too long for that is shortened and given a hash).
    public static func partialPath(for outputPath: String) -> String { PartialName.path(for: outputPath) }

    /// Starts the session on its inputs alone, as AVCaptureSession's startRunning: nothing is recorded until
    /// outputs are added (movies, photos, live views, before or after this call); it runs until `stop()` or a
    /// lost device. Throws, recording nothing, when an input cannot be opened.
    public func start(_ inputs: CaptureInputs, events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws {
        try start(inputs.configuration, events: events)
    }

    public var currentState: State { shared.withLock { $0.state } }

    /// Starts recording. Throws without writing anything if the configuration cannot work.
    /// A session that finished may start again (a retake), to the same or another output.
    public func start(_ configuration: RecordingConfiguration,
                      events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws {
        let interrupt = InterruptFlag()
        let pending = try shared.withLock { shared in
            if shared.state == .recording {
                throw ReelError.invalidInput("this session is already recording; stop it first")
            }
            shared.phase = .starting(interrupt)
            defer { shared.pendingMovies = [] }
            // A movie stopped before the start is left out (it records nothing).
            return shared.pendingMovies.filter { !$0.wasStoppedBeforeStart }
        }
        // Set once the preparation claimed the configuration's replay buffer: a failure after it gives it back.
        var claimedReplay: ReplayBuffer? = nil
        do {
            let preparation = try RecordingPreparation(configuration, movieOutputs: pending, interrupt: interrupt)
            claimedReplay = configuration.replayBuffer
            let shared = self.shared
            let outputEvents: @Sendable (RecordingEvent) -> Void = { event in
                // A push's connection shows in `status` too.
                if case .liveConnection(let connection) = event { shared.withLock { $0.live.update(connection) } }
                if case .liveStopped(let result) = event, let url = result.url {
                    shared.withLock { $0.live.update(LiveConnection(url: url, state: .disconnected, reason: result.error)) }
                }
                events(event)
            }
            // Without a movie of its own, a replay buffer and triggered movies get encoders of their own.
            let schedule = configuration.triggers.map { _ in TriggerSchedule() }
            shared.withLock { $0.triggerSchedule = schedule }
            let keeper = try CaptureSession.packetKeeper(configuration, context: preparation.context, schedule: schedule, events: outputEvents)
            let (engine, movies) = preparation.makeSession(mainProgress: { progress in
                shared.withLock { $0.live.progress = progress }
                events(.progress(progress))
            }, segmentEvents: outputEvents)
            let running = Running(engine: engine, switcher: InputSwitcher(engine: engine, factory: preparation.session.readerFactory),
                                  context: preparation.context, buffer: preparation.buffer, paced: preparation.paced,
                                  outputs: preparation.movies.map(\.outputPath), plan: preparation.plan,
                                  mainMovie: configuration.hasOwnMovie ? movies.first : nil, outputEvents: outputEvents,
                                  composition: preparation.composition)
            preparation.composition?.onLayerChange { change in
                events(.videoInput(VideoInputChange(input: change.index + 1, spec: change.spec.description, lost: change.lost,
                                                    reason: change.reason)))
            }
            let (photos, previews) = shared.withLock { shared in
                shared.live = SessionStatus.Live(video: configuration.video?.description, audio: configuration.audio?.description,
                                                 videoSpec: configuration.video)
                shared.photoRequests = preparation.photos
                shared.replayBuffers = configuration.replayBuffer.map { [$0] } ?? []
                shared.phase = .recording(running)
                return (shared.photoOutputs, shared.previewOutputs)
            }
            for photo in photos { photo.attach(preparation.photos) }
            for (movie, recorder) in zip(pending, movies.suffix(pending.count)) { movie.attach(recorder) }
            // A stop that came while the inputs were opening is carried out now.
            if interrupt.isRaised { engine.requestStop() }
            // The movies' shared video encoders first: a movie waits for its encoder to open.
            for encoder in preparation.context.sharedEncoders.all { engine.add(encoder) }
            for movie in movies { engine.add(movie) }
            if let keeper { _ = CaptureSession.addWithoutMovie(keeper, running: running) }
            if let triggers = configuration.triggers, let schedule {
                engine.add(CaptureSession.triggerFeed(triggers, schedule: schedule, engine: engine, events: outputEvents))
            }
            if let audio = configuration.audio, audio.kind != .file, configuration.needsLevels {
                engine.add(levelFeed(engine: engine, events: events))
            }
            if !configuration.alarms.isEmpty { engine.add(CaptureSession.alarmFeed(configuration.alarms, engine: engine, events: events)) }
            for preview in previews {
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
                let result = self.result(results, ending: ending, configuration: configuration, startedAt: startedAt)
                // The event first: whoever waits in finished() or record(events:) has had every event when it
                // returns (a handler should not start the next recording itself: the session is not done yet).
                events(.finished(result))
                self.didFinish(result)
            }
        } catch {
            // Nothing started: the movies added before wait for the next start.
            claimedReplay?.release()
            shared.withLock { shared in
                shared.phase = .ready
                shared.pendingMovies = pending + shared.pendingMovies
            }
            // An FFmpeg call that failed while opening (an encoder, a decoder): the typed kind with the C call.
            if let error = error as? FFmpegError { throw ReelError.ffmpeg(error, while: "cannot start the recording") }
            throw error
        }
    }

    /// Pauses every movie of the recording (AVCaptureMovieFileOutput's pauseRecording): while paused nothing
    /// is written and the inputs keep running; `resumeRecording()` goes on without a hole in the movies'
    /// timelines (audio and video together, a keyframe at the resume point). The duration limit counts
    /// recorded media, not the paused time. Nothing happens when the session is not recording.
    public func pauseRecording() { setPaused(true) }

    public func resumeRecording() { setPaused(false) }

    private func setPaused(_ paused: Bool) {
        let engine = shared.withLock { shared in
            if shared.running != nil { shared.live.paused = paused }
            return shared.running?.engine
        }
        engine?.setPaused(paused)
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
        if type == .video, let composition {
            throw ReelError.invalidInput("this session composes \(composition.specs.count) video inputs: switch one of them (switch-video N SPEC)")
        }
        if type == .audio, let mixed = shared.withLock({ $0.running?.context.configuration.additionalAudio.count }), mixed > 0 {
            throw ReelError.invalidInput("this session takes \(mixed + 1) sound inputs: switching one of them is not built yet")
        }
        guard let switcher = shared.withLock({ $0.running?.switcher }) else {
            throw ReelError.invalidInput("the session is not recording: start it before switching inputs")
        }
        try switcher.switchInput(type, to: spec)
        let name = spec?.description ?? "none"
        shared.withLock { shared in
            if type == .video {
                shared.live.video = name
                shared.live.videoSpec = spec
            } else {
                shared.live.audio = name
            }
        }
    }

    /// What the session is doing now: its state, inputs, outputs and the main movie's latest progress.
    public var status: SessionStatus {
        let (state, current, running, replay) = shared.withLock { ($0.state, $0.live, $0.running, $0.replayBuffers.last) }
        switch state {
        case .ready:
            return SessionStatus(state: .ready, video: nil, audio: nil, outputs: [], progress: nil, result: nil)
        case .recording:
            return SessionStatus(state: current.paused ? .paused : .recording, video: current.video, audio: current.audio,
                                 videoInputs: running?.composition?.specs.map(\.description),
                                 layout: running?.composition?.layoutNow.name, outputs: running?.outputs ?? [], progress: current.progress,
                                 timeline: running?.paced == true ? running?.engine.timelineNow : nil, result: nil,
                                 livePushes: current.pushes.isEmpty ? nil : current.pushes, levels: current.levels,
                                 capturedPictures: running?.engine.capturedPictures, droppedPictures: running.map { $0.engine.readerDropCount() },
                                 replay: replay.map { let held = $0.held; return .init(seconds: held.seconds, bytes: held.bytes) })
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
        guard let (running, switched) = shared.withLock({ shared in shared.running.map { ($0, shared.live.videoSpec) } }) else {
            throw ReelError.invalidInput("the session is not recording: start it first (or give the controls in the configuration)")
        }
        // The camera recording now (after a switch, the one switched to).
        guard let camera = switched ?? running.context.configuration.video, camera.kind == .v4l2 else {
            throw ReelError.invalidInput("camera controls need a V4L2 camera as the video source (v4l2:/dev/videoN)")
        }
        try running.engine.changeCameraControls(settings, camera: camera, restores: running.context.configuration.restoresCameraControls)
    }

    /// Asks the recording to stop; the file is then finalized. Returns at once; `waitUntilFinished()` or
    /// `finished()` give the result.
    public func stop() {
        let engine: SessionEngine? = shared.withLock { shared in
            switch shared.phase {
            case .starting(let interrupt):
                interrupt.raise()
                return nil
            case .recording(let running): return running.engine
            case .ready, .finished: return nil
            }
        }
        engine?.requestStop()
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
        shared.wait { $0.state.result }
    }

    /// Suspends until the recording has finished.
    public func finished() async -> RecordingResult {
        await withCheckedContinuation { continuation in
            let immediate: RecordingResult? = shared.withLock { shared in
                if let result = shared.state.result { return result }
                shared.finishWaiters.append(continuation)
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
        let (waiters, levelStreams) = shared.withLockNotifying { shared in
            shared.phase = .finished(result)
            defer {
                shared.finishWaiters.removeAll()
                shared.live.levelStreams.removeAll()
            }
            return (shared.finishWaiters, shared.live.levelStreams)
        }
        for waiter in waiters { waiter.resume(returning: result) }
        for stream in levelStreams { stream.finish() }
    }
}
