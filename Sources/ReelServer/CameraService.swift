import CMicroHTTPD
import FoundationEssentials
import Glibc
@_spi(ReelTools) import Reel
import ReelControl
import SystemSupport

/// The camera behind `reel serve`: a capture session that runs without a movie of its own (preview and
/// photos all along), movies that come and go on it, and the seeds' shutter: a press starts a movie and takes
/// the first picture as a photo; a release before the hold threshold keeps the photo and deletes the movie,
/// a later one (or the movie's duration limit) keeps the movie and deletes the photo. Every method is safe
/// to call from any connection's thread; state changes are published as events.
final class CameraService: @unchecked Sendable {
    /// A movie being recorded (by the shutter or the API).
    private struct Take {
        let output: MovieOutput
        let path: String
        /// Further movies of the same take at other presets (tiers), stopped with it.
        let tiers: [MovieOutput]
        /// The first picture, kept if the press turns out a tap.
        let photoPath: String?
        /// That picture's outcome, once known.
        let photo = PressPhoto()
        let startedAt: Int64
    }

    let folder: RecordingsFolder
    let events = EventHub()
    let preview = PreviewHub()
    let metrics = ServeMetrics()
    /// The gallery's thumbnails, made as recordings are finished.
    let thumbnails: Thumbnails
    let shutter: ShutterPolicy
    let lock = Condition()
    var inputs: Inputs
    /// The running session's controller (the control socket's): switches, controls and photos go through it.
    private var controller: SessionController?
    var session: CaptureSession? { controller?.session }
    private var take: Take?
    /// Movies of taps: deleted once stopped, so their end is not announced.
    /// Movies whose end a shutter release reports (as a photo or a movie), not the watcher.
    private var released: Set<ObjectIdentifier> = []
    /// The preview's size and rate (reduced: it must never slow the recording).
    static let previewWidth = 640
    static let previewRate: Double = 15

    /// The camera as LL-HLS at /live/ (`reel serve --live`), if asked for; the running stream.
    let liveStream: CameraLiveStream?
    private var liveOutput: LiveStreamOutput?
    /// The alarms the camera is watched for (`reel serve --alarm`), and those on now.
    let alarms: [AlarmRule]
    private var alarmsOn: [Alarm] = []

    /// The camera's replay buffer and triggered movies (`--replay-buffer`, `--trigger`).
    let keeping: Keeping

    init(folder: RecordingsFolder, inputs: Inputs, shutter: ShutterPolicy = .standard, liveStream: CameraLiveStream? = nil,
         alarms: [AlarmRule] = [], keeping: Keeping = Keeping()) {
        self.alarms = alarms
        self.keeping = keeping
        self.folder = folder
        thumbnails = Thumbnails(folder: folder)
        self.inputs = inputs
        self.shutter = shutter
        self.liveStream = liveStream
    }

    // MARK: the session

    /// Starts the session on `inputs` (or the current ones). Throws `ReelError` when a device cannot be opened.
    func startSession(_ newInputs: Inputs? = nil) throws {
        try lock.withLock {
            if let session, session.currentState == .recording {
                throw ReelError.invalidInput("the camera is already running: stop it first, or switch its inputs")
            }
            let chosen = newInputs ?? inputs
            let preset = try PresetLibrary.preset(named: chosen.preset)
            // The camera runs on its inputs alone; each press adds a movie or takes a photo.
            var capture = CaptureInputs(video: try chosen.video.map(DeviceSpec.init(parsing:)),
                                       audio: try chosen.audio.map(DeviceSpec.init(parsing:)), preset: preset)
            try CameraService.compose(chosen, into: &capture)
            capture.alarms = alarms
            keeping.apply(to: &capture, folder: folder.path)
            alarmsOn = []
            let session = CaptureSession()
            let controller = SessionController(session: session, folder: folder.path)
            let previewOutput = try PreviewOutput(width: min(CameraService.previewWidth, preset.video.width),
                                                  framesPerSecond: CameraService.previewRate)
            session.addOutput(previewOutput)
            try session.start(capture) { [weak self] event in self?.sessionEvent(event) }
            do {
                liveOutput = try liveStream?.start(on: session, preset: preset)
            } catch {
                session.stop()
                _ = session.waitUntilFinished()
                throw error
            }
            let hub = preview
            Task.detached {
                for await picture in previewOutput.pictures {
                    hub.deliver(picture)
                }
            }
            inputs = chosen
            self.controller = controller
        }
        publishState()
    }

    /// Stops the session (a movie being recorded is finalized first).
    func stopSession() -> RecordingResult? {
        let session = lock.withLock { self.session }
        if lock.withLock({ take != nil }) { _ = try? stopMovie() }  // it throws only when no movie is being recorded
        session?.stop()
        let result = session?.waitUntilFinished()
        publishState()
        return result
    }

    private func sessionEvent(_ event: RecordingEvent) {
        // The camera's streams (`--live`, `--live-push`), named as on the control socket.
        if case .liveStopped(let result) = event {
            // A stream stopped before the camera (its folder failed, a server refused it).
            events.publish("liveStopped", json: CameraService.json(result))
            publishState()
        }
        if case .liveConnection(let connection) = event {
            events.publish(connection.eventName, json: CameraService.json(connection))
        }
        if case .videoInput(let change) = event {
            events.publish(change.lost ? "videoInputLost" : "videoInputBack", json: CameraService.json(change))
        }
        if case .levels(let levels) = event {
            // Ten a second: a slow page drops the oldest (EventHub's bound), never the recording.
            events.publish("levels", json: CameraService.json(levels))
        }
        if case .alarmStarted(let alarm) = event {
            let now = lock.withLock { () -> Double? in
                alarmsOn.append(alarm)
                return session?.status.timeline
            }
            events.publish("alarmStarted", json: CameraService.json(AlarmNotice(alarm: alarm, now: now)))
        }
        if case .alarmEnded(let alarm) = event {
            let now = lock.withLock { () -> Double? in
                alarmsOn.removeAll { $0.kind == alarm.kind }
                return session?.status.timeline
            }
            events.publish("alarmEnded", json: CameraService.json(AlarmNotice(alarm: alarm, now: now)))
        }
        publishKept(event)
        if case .finished(let result) = event {
            // The session ended by itself (a device lost): say so; a movie in it has its own result.
            if result.stopReason != .stopped {
                events.publish("error", json: CameraService.json(["error": result.error ?? "the camera stopped (\(result.stopReason.rawValue))",
                                                                  "stopReason": result.stopReason.rawValue]))
            }
            publishState()
        }
    }

    /// Switches the camera or microphone while running (nil records black or silence).
    func switchInput(video: String??, audio: String??) throws {
        let controller = try running()
        if let video {
            try controller.switchVideo(to: try video.map(DeviceSpec.init(parsing:)))
            lock.withLock { inputs.video = video }
        }
        if let audio {
            try controller.switchAudio(to: try audio.map(DeviceSpec.init(parsing:)))
            lock.withLock { inputs.audio = audio }
        }
        publishState()
    }

    /// `NAME=VALUE` settings, read as the control socket's `camera-control` reads them.
    func setCameraControls(_ settings: [String]) throws {
        let controller = try running()
        guard case .cameraControl(let parsed) = try ControlCommand(parsing: ["camera-control"] + settings) else { return }
        try controller.setCameraControls(parsed)
    }

    // MARK: photos and movies

    /// Takes the next picture as a photo in the recordings folder; returns its name.
    func photo() throws -> String {
        let written = try running().takePhoto(to: folder.newPath("photo", extension: "jpg"))
        let name = URL(fileURLWithPath: written).lastPathComponent
        metrics.countPhoto()
        thumbnails.prepare(name)
        events.publish("photo", json: CameraService.json(["name": name]))
        return name
    }

    /// Starts a movie; returns its file name. `press`: the shutter (a photo of its first picture is kept aside).
    func startMovie(_ request: MovieRequest, press: Bool = false) throws -> String {
        let controller = try running()
        let (session, photos) = (controller.session, controller.photos)
        let preset = try PresetLibrary.preset(named: request.preset ?? lock.withLock { inputs.preset })
        var limits = RecordingLimits(maxDuration: request.maxDuration)
        func bytes(_ text: String?, _ field: String) throws -> Int64? {
            guard let text else { return nil }
            guard let value = ByteCount.parse(text) else {
                throw ReelError.invalidInput("\(field) '\(text)' is not a size: use bytes or K/M/G, e.g. 500M")
            }
            return value
        }
        limits.maxFileSize = try bytes(request.maxSize, "maxSize")
        if let floor = try bytes(request.minFree, "minFree") { limits.minFreeDiskSpace = floor }
        let segmentation = request.segmentDuration.map { Segmentation(duration: $0) }
        let path = folder.newPath("movie", extension: "mov")
        let output = MovieOutput(outputPath: path, preset: preset, limits: limits, segmentation: segmentation)
        let tiers = try request.tiers.map { name in
            MovieOutput(outputPath: String(path.dropLast(4)) + "-\(name).mov", preset: try PresetLibrary.preset(named: name),
                        limits: limits, segmentation: segmentation)
        }
        try lock.withLock {
            guard take == nil else { throw ReelError.invalidInput("a movie is already being recorded: stop it first") }
            try session.addOutput(output)
            do {
                for tier in tiers { try session.addOutput(tier) }
            } catch {
                // All or nothing: a tier that cannot start takes the take back.
                output.stop()
                for tier in tiers { tier.stop() }
                throw error
            }
            take = Take(output: output, path: path, tiers: tiers,
                        photoPath: press ? folder.newPath(".press", extension: "jpg") : nil, startedAt: MonotonicClock.nanoseconds())
        }
        if press, let pressed = lock.withLock({ take }), let photoPath = pressed.photoPath {
            // The first picture, as the tap's photo (kept only if the press is short); a release says why it
            // is missing if it could not be taken.
            Task.detached {
                do {
                    _ = try await photos.capture(to: StillRequest(path: photoPath))
                    pressed.photo.settle(.taken)
                } catch {
                    pressed.photo.settle(.failed("\(error)"))
                }
            }
        }
        watch(output)
        // A segmented take's files are movie-…-001.mov, -002 …: the name given is the first one's.
        let name = URL(fileURLWithPath: segmentation == nil ? path : Segmentation.segmentPath(path, index: 1)).lastPathComponent
        events.publish("movieStarted", json: CameraService.json(["name": name]))
        publishState()
        return name
    }

    /// Stops the movie being recorded (and its tiers); returns its name and result (with the tiers' under
    /// `outputs`).
    func stopMovie() throws -> Shot {
        guard let take = lock.withLock({ self.take }) else { throw ReelError.invalidInput("no movie is being recorded") }
        let (result, _) = try finish(take)
        if let photoPath = take.photoPath { unlink(photoPath) }
        return movieShot(take, result)
    }

    /// The shutter released: the movie is stopped, and ShutterPolicy says by what it holds whether the press
    /// was a tap (the photo of its first picture is kept, the movie deleted) or a hold (the movie is kept).
    func release() throws -> Shot {
        guard let take = lock.withLock({ self.take }), let photoPath = take.photoPath else {
            throw ReelError.invalidInput("the shutter is not pressed")
        }
        lock.withLock { _ = released.insert(ObjectIdentifier(take.output)) }
        let (result, tierResults) = try finish(take)
        guard shutter.press(recordedSeconds: result.duration) == .tap else {
            unlink(photoPath)
            events.publish("movieFinished", json: CameraService.json(result))
            return movieShot(take, result)
        }
        for file in ([result] + tierResults).flatMap(CameraService.files(of:)) { unlink(file) }
        // The first picture may still be being encoded: wait for its outcome. It comes with the camera's next
        // picture, or as a failure when the session ends (a camera that stops delivering ends it within the
        // device timeout); the bound only keeps a request from waiting without end.
        let photo = take.photo.wait(seconds: 10)
        let name = URL(fileURLWithPath: folder.newPath("photo", extension: "jpg")).lastPathComponent
        guard photo == .taken, FileSystem.moveIntoPlace(photoPath, "\(folder.path)/\(name)") == 0 else {
            let reason = if case .failed(let message) = photo { message } else { "no picture arrived" }
            throw ReelError.runtime("the photo could not be taken: \(reason)")
        }
        metrics.countPhoto()
        thumbnails.prepare(name)
        events.publish("photo", json: CameraService.json(["name": name]))
        publishState()
        return Shot(kind: "photo", name: name, result: nil)
    }

    /// Stops a take's movie and its tiers and waits for their results; the take is over.
    private func finish(_ take: Take) throws -> (movie: RecordingResult, tiers: [RecordingResult]) {
        take.output.stop()
        for tier in take.tiers { tier.stop() }
        var result = try take.output.result ?? take.output.waitUntilFinished()
        let tiers = try take.tiers.map { try $0.result ?? $0.waitUntilFinished() }
        if !tiers.isEmpty { result.outputs = [result] + tiers }
        lock.withLock { self.take = nil }
        return (result, tiers)
    }

    /// The file a finished movie is known by: its first kept segment's, or its own (nil when it failed).
    static func keptFile(of result: RecordingResult) -> String? {
        guard result.recordedSuccessfully else { return nil }
        let file = result.segments?.first(where: { $0.recordedSuccessfully && !$0.deleted })?.output ?? result.output
        return URL(fileURLWithPath: file).lastPathComponent
    }

    /// A kept movie: named by its first file (a segmented take's files are movie-…-001.mov, -002 …).
    private func movieShot(_ take: Take, _ result: RecordingResult) -> Shot {
        let file = result.segments?.first(where: { $0.recordedSuccessfully && !$0.deleted })?.output ?? take.path
        let shot = Shot(kind: "movie", name: result.recordedSuccessfully ? URL(fileURLWithPath: file).lastPathComponent : nil,
                        result: result)
        if let name = shot.name { thumbnails.prepare(name) }
        publishState()
        return shot
    }

    /// The files a movie's result says it wrote (its segments, or the one file).
    private static func files(of result: RecordingResult) -> [String] {
        result.segments.map { $0.filter { !$0.deleted }.map(\.output) } ?? [result.output]
    }

    func pauseMovie(_ paused: Bool) throws {
        guard let take = lock.withLock({ self.take }) else { throw ReelError.invalidInput("no movie is being recorded") }
        if paused { take.output.pause() } else { take.output.resume() }
        publishState()
    }

    /// Publishes the movie's progress every second, and its end as soon as it is finalized (a limit, a stop).
    private func watch(_ output: MovieOutput) {
        Task.detached { [weak self] in
            while output.result == nil {
                try? await Task.sleep(for: .seconds(1))
                guard let self, output.result == nil else { break }
                self.events.publish("progress", json: CameraService.json(self.status()))
            }
        }
        Task.detached { [weak self] in
            guard let result = try? await output.finished(), let self else { return }
            self.metrics.count(result)
            let released = self.lock.withLock { self.released.remove(ObjectIdentifier(output)) != nil }
            if !released { self.events.publish("movieFinished", json: CameraService.json(result)) }
            if !released, let kept = CameraService.keptFile(of: result) { self.thumbnails.prepare(kept) }
            // A movie stopped by its own limit (the 60 s cap) is done: the shutter's release then finds none.
            let ended = self.lock.withLock { () -> Take? in
                guard self.take?.output === output, result.stopReason != .stopped else { return nil }
                defer { self.take = nil }
                return self.take
            }
            if let photo = ended?.photoPath { unlink(photo) }
            // The take's movie ran on threads of its own, and glibc keeps what they freed in per-thread arenas
            // (its encoders give theirs back as they close, on whichever thread that is: Encoder).
            ProcessMemory.releaseFree()
            self.publishState()
        }
    }

    func running() throws -> SessionController {
        try lock.withLock {
            guard let controller, controller.session.currentState == .recording else {
                throw ReelError.invalidInput("the camera is not running: start it first")
            }
            return controller
        }
    }

    /// The finished recordings: the movie being recorded (written in place, so it plays after a crash) is
    /// not one yet.
    func recordings() -> [RecordingsFolder.Entry] {
        let recording = lock.withLock { take.map { URL(fileURLWithPath: $0.path).lastPathComponent } }
        return folder.list().filter { $0.name != recording }
    }

    /// An alarm as /api/events sends it: with the camera's session time now, so the page can count how long.
    private struct AlarmNotice: Encodable {
        let alarm: Alarm
        let now: Double?

        func encode(to encoder: any Encoder) throws {
            try alarm.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(now, forKey: .now)
        }

        private enum Key: String, CodingKey { case now }
    }

    // MARK: status

    func status() -> Status {
        lock.withLock {
            let running = session?.currentState == .recording
            let paused = take.map { $0.output.isPaused } ?? false
            return Status(running: running, inputs: inputs, recording: take.map { URL(fileURLWithPath: $0.path).lastPathComponent },
                          paused: paused, recorded: take.map { $0.output.progress?.mediaDuration ?? 0 },
                          holdThreshold: shutter.holdThreshold, previewViewers: preview.viewerCount,
                          live: running && liveOutput?.results == nil && liveStream?.isPlayable == true ? "/live/index.m3u8" : nil,
                          alarms: running ? alarmsOn : [], time: running ? session?.status.timeline : nil,
                          replaySeconds: running ? keeping.replaySeconds : nil, triggers: keeping.triggers?.rules.map(\.kind) ?? [],
                          triggersOn: running ? session?.triggersOn ?? [] : [],
                          layout: running ? session?.layout?.name : nil,
                          layouts: CameraService.layoutChoices(inputs: running ? session?.videoInputs.count ?? 0 : 0))
        }
    }

    /// What `/metrics` shows now (see ServeMetrics).
    func metricsText() -> String {
        let (recording, session) = lock.withLock { () -> ([(output: String, progress: RecordingProgress)], SessionStatus?) in
            let outputs = take.map { [$0.output] + $0.tiers } ?? []
            return (outputs.compactMap { output in output.progress.map { (URL(fileURLWithPath: output.outputPath).lastPathComponent, $0) } },
                    self.session?.status)
        }
        return ServeMetrics.render(.init(uptime: Double(MonotonicClock.nanoseconds() - metrics.startedAt) / 1e9, status: status(),
                                         recording: recording, session: session, totals: metrics.currentTotals, alarmKinds: alarms.map(\.kind),
                                         freeBytes: folder.freeBytes, eventStreams: events.subscriberCount))
    }

    /// The camera's stream began or was cleared (its playlist came or went): the page learns it from the state.
    func liveStreamChanged() { publishState() }

    func publishState() {
        events.publish("state", json: CameraService.json(status()))
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Stops everything and ends the streams (the server is stopping).
    func shutDown() {
        _ = stopSession()
        events.close()
        preview.close()
    }
}
