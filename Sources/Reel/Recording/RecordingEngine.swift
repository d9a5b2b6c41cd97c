import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization

/// The encoding thread of one recording: takes captured items in time order from the CaptureBuffer, puts
/// them on the movie's clock, applies the duration limit, encodes H.264 and AAC and hands packets to the
/// MovieWriter, which applies the size and disk limits. Everything here runs on one dedicated thread, but
/// for AAC, which an EncoderThread runs beside it.
final class RecordingEngine: @unchecked Sendable {
    struct Setup: Sendable {
        /// Where the movie is written until finalized: the output path itself when fragments keep it
        /// playable all along, else a hidden temporary name.
        var temporaryPath: String
        var fragmentInterval: Double
        var fragmentMemoryLimit: Int64
        /// Seconds a live device may deliver nothing before it counts as lost.
        var deviceTimeout: Double
        var outputPath: String
        var folder: String
        var preset: Preset
        var limits: RecordingLimits
        var rotation: Int
        var hasVideo: Bool
        /// What the video is tagged with (the video source's ColourPlan output).
        var videoColour: ColourDescription
        var hasAudio: Bool
        /// Unpaced inputs are encoded in strict time order; paced ones as they come.
        var ordered: Bool
        /// Unpaced inputs (files, lavfi with realtime=0): the movie's timeline is the inputs' own from their
        /// start (audio may lead the first picture). Live ones: the movie starts with the first picture.
        var timelineFromInputStart: Bool
        var videoDevice: String?
        var audioDevice: String?
        var stills: [StillRequest]
        /// A camera's control values to give back when the recording ends (`restoresCameraControls`).
        var controlsToRestore: (path: String, values: [CameraControlSetting.PreviousValue])?
        /// Seconds the input file lasts (a transcode), for progress.
        var inputDuration: Double?
    }

    private let setup: Setup
    private let buffer: CaptureBuffer
    private let readers: [InputReader]
    private let stopRequest: Atomic<Bool>
    private let events: @Sendable (RecordingEvent) -> Void
    private let startedAt: Int64

    // Encoding state, owned by the engine thread.
    private var videoEncoder: Encoder?
    private var audioEncoder: EncoderThread?
    private var audioEncoderRunning = false
    private var writer: MovieWriter?
    private let packet = Packet()
    private var audioFIFO: SampleFIFO?
    private var videoStream = -1
    private var audioStream = -1
    private var origin: Timestamp? = nil
    private var cadence = VideoCadence()
    /// The latest picture, shown once the next one says for how long (see VideoCadence).
    private var heldPicture: CapturedItem? = nil
    private var duplicatedFrames = 0
    private var nextForcedKeyframe: Double = 0
    private var videoFrames = 0
    private var audioFIFOStart: Int64? = nil  // session time of the FIFO's first sample, in samples
    private var audioSamplesEncoded: Int64 = 0
    private var videoDone = false
    private var audioDone = false
    private var stopReason: StopReason? = nil
    private var errorMessage: String? = nil
    private var lastProgress: (time: Int64, frames: Int) = (0, 0)
    private var stillWritten: String? = nil
    // CPU accounting (nanoseconds of this thread's CPU clock).
    private var encodeNanoseconds: [MediaType: Int64] = [.video: 0, .audio: 0]
    private var muxNanoseconds: Int64 = 0
    private var threadStart: Int64 = 0
    private var processStart: Int64 = 0

    init(setup: Setup, buffer: CaptureBuffer, readers: [InputReader], events: @escaping @Sendable (RecordingEvent) -> Void) {
        self.setup = setup
        self.buffer = buffer
        self.readers = readers
        self.stopRequest = Atomic(false)
        self.events = events
        self.startedAt = MonotonicClock.nanoseconds()
        if setup.timelineFromInputStart { origin = .zero(in: sessionTimeBase) }
    }

    func requestStop() { stopRequest.store(true, ordering: .releasing) }

    private var videoTimeBase: Rational { setup.preset.videoFrameRate.inverted }
    private var audioTimeBase: Rational { Rational(1, Int32(setup.preset.audio.sampleRate)) }

    /// Runs the recording to its end and returns the result. Call on the engine's own thread.
    func run() -> RecordingResult {
        threadStart = CPUClock.threadNanoseconds()
        processStart = CPUClock.processNanoseconds()
        do {
            try openOutput()
            for reader in readers { reader.start() }
            events(.started(output: setup.outputPath))
            try encodeUntilStopped()
        } catch {
            stopReason = .failed
            errorMessage = "\(error)"
        }
        for reader in readers { reader.stop() }
        buffer.close()
        for reader in readers where !reader.join(timeout: 1) {
            errorMessage = errorMessage ?? "\(reader.spec) did not return from a blocking read; its thread was left behind"
        }
        if let restore = setup.controlsToRestore { CameraControlSetting.restore(restore.values, to: restore.path) }
        return finalize()
    }

    private func openOutput() throws {
        var encoders: [Encoder] = []
        if setup.hasVideo {
            let encoder = try Encoder(video: setup.preset.videoEncoderSettings(colour: setup.videoColour), globalHeader: MovieWriter.needsGlobalHeader)
            videoStream = encoders.count
            encoders.append(encoder)
            videoEncoder = encoder
        }
        if setup.hasAudio {
            let encoder = try Encoder(audio: setup.preset.audioEncoderSettings(), globalHeader: MovieWriter.needsGlobalHeader)
            audioStream = encoders.count
            encoders.append(encoder)
            audioFIFO = SampleFIFO(format: .floatPlanar, channels: setup.preset.audio.channels)
            let frames = try (0..<EncoderThread.audioFramePool).map { _ in
                let frame = Frame()
                try frame.allocateAudio(sampleCount: encoder.frameSize, format: .floatPlanar,
                                        channels: setup.preset.audio.channels, sampleRate: setup.preset.audio.sampleRate)
                return frame
            }
            audioEncoder = EncoderThread(encoder: encoder, frames: frames, name: "reel.encoder.audio")
            audioEncoderRunning = true
        }
        let writer = try MovieWriter(path: setup.temporaryPath, encoders: encoders, rotationDegrees: setup.rotation,
                                     limits: setup.limits, folder: setup.folder, fragmentInterval: setup.fragmentInterval,
                                     fragmentMemoryLimit: setup.fragmentMemoryLimit)
        try writer.start()
        self.writer = writer
    }

    private func encodeUntilStopped() throws {
        var stopping = false
        while stopReason == nil {
            // A stop before the first picture waits for it (up to two seconds), so even the shortest press
            // yields a photo and a playable movie.
            let hasFirstPicture = videoFrames > 0 || !setup.hasVideo
                || MonotonicClock.nanoseconds() - startedAt > 2_000_000_000
            if !stopping && hasFirstPicture && stopRequest.load(ordering: .acquiring) {
                // Stop the devices; what they already delivered is still encoded below.
                stopping = true
                for reader in readers { reader.stop() }
            }
            switch buffer.next(ordered: setup.ordered && !stopping, timeout: 0.1) {
            case .idle:
                reportProgress()
                if !stopping, let stalled = stalledDevice() {
                    // A device that stops delivering (unplugged, its server frozen) ends the recording.
                    stopReason = .deviceLost
                    errorMessage = "\(stalled.spec) delivered nothing for \(String(printf: "%g", setup.deviceTimeout)) s"
                }
            case .allEnded:
                stopReason = stopping ? .stopped : endingReason()
            case .item(let type, let item):
                if type == .video {
                    try encodeVideo(item)
                } else {
                    defer { buffer.recycle(type, item.frame) }
                    try encodeAudio(item)
                }
                if stopReason == nil, let maxDuration = setup.limits.maxDuration, maxDuration > 0,
                   (videoDone || !setup.hasVideo), (audioDone || !setup.hasAudio) {
                    stopReason = .maxDurationReached
                }
                reportProgress()
            }
        }
    }

    /// Cameras and audio servers can need seconds to deliver their first frame.
    static let firstFrameTimeout: Double = 10

    /// A live device reader that has delivered nothing for longer than the timeout, unless its stream has
    /// already ended or everything it needed was delivered.
    private func stalledDevice() -> InputReader? {
        readers.first { reader in
            // The first frame may take longer: cameras and audio servers can need seconds to start.
            let timeout = reader.statistics.deliveredCount == 0 ? max(RecordingEngine.firstFrameTimeout, setup.deviceTimeout)
                                                                : setup.deviceTimeout
            return reader.spec.isDevice && reader.secondsSinceLastDelivery > timeout
                && reader.ending == nil && !(reader.carriesVideo ? videoDone : audioDone)
        }
    }

    /// Why the inputs ended by themselves: a lost device outranks a finished file.
    private func endingReason() -> StopReason {
        let endings = readers.compactMap(\.ending)
        if let lost = endings.first(where: { $0.reason == .deviceLost || $0.reason == .failed }) {
            errorMessage = lost.message
            return lost.reason
        }
        return .inputEnded
    }

    // MARK: video

    /// Takes a picture (and gives its frame back to the pool once shown): the held picture is shown in the
    /// slots the cadence gives it, and this one is held in its place.
    private func encodeVideo(_ item: CapturedItem) throws {
        guard videoEncoder != nil, !videoDone else {
            buffer.recycle(.video, item.frame)
            return
        }
        if origin == nil { origin = item.time }
        if stillWritten == nil && !setup.stills.isEmpty {
            // The photo comes from the raw first picture (sharper than decoding it back out of H.264).
            for still in setup.stills { try StillImageWriter.write(item.frame, rotation: setup.rotation, to: still) }
            stillWritten = setup.stills[0].path
        }
        let slots = cadence.arrive(time: VideoCadence.frames(of: item.time - origin!, rate: setup.preset.videoFrameRate))
        let previous = heldPicture
        heldPicture = item
        if let previous {
            defer { buffer.recycle(.video, previous.frame) }
            try show(previous.frame, in: slots)
        }
    }

    /// Shows the held picture for as long as the cadence says (at the end of the input, or at a stop), then
    /// gives its frame back.
    private func showHeldPicture() throws {
        guard let held = heldPicture else { return }
        heldPicture = nil
        defer { buffer.recycle(.video, held.frame) }
        try show(held.frame, in: cadence.finish())
    }

    private func releaseHeldPicture() {
        if let held = heldPicture { buffer.recycle(.video, held.frame) }
        heldPicture = nil
    }

    /// Encodes one picture for each slot (a repeat after the first), up to the duration limit.
    private func show(_ frame: Frame, in slots: Range<Int64>) throws {
        guard let encoder = videoEncoder else { return }
        for slot in slots {
            if let limit = videoSlotLimit, slot >= limit {
                videoDone = true
                releaseHeldPicture()
                return
            }
            frame.pts = slot
            // Each fragment starts with a keyframe, so one comes at every multiple of the fragment interval.
            frame.forcesKeyframe = false
            if setup.fragmentInterval > 0 {
                let time = Double(slot) * videoTimeBase.doubleValue
                if time >= nextForcedKeyframe - 1e-9 {
                    frame.forcesKeyframe = videoFrames > 0
                    nextForcedKeyframe = ((time + 1e-9) / setup.fragmentInterval).rounded(.down) * setup.fragmentInterval
                        + setup.fragmentInterval
                }
            }
            try send(frame, to: encoder, stream: videoStream)
            if slot > slots.lowerBound { duplicatedFrames += 1 }
            videoFrames += 1
            if stopReason != nil { return }
        }
    }

    /// The first frame slot not kept under the duration limit: every kept frame ends by the limit, so no
    /// track runs past it (5 s at 30 fps: 150 frames; 1.01 s: 30 frames, 1.0 s). A limit shorter than one
    /// frame still keeps the first picture: a movie needs one.
    private var videoSlotLimit: Int64? {
        guard let maxDuration = setup.limits.maxDuration else { return nil }
        return max(1, Int64((maxDuration * setup.preset.videoFrameRate.doubleValue + 1e-9).rounded(.down)))
    }

    // MARK: audio

    private func encodeAudio(_ item: CapturedItem) throws {
        guard let fifo = audioFIFO, !audioDone else { return }
        let itemStart = item.time.rescaled(to: audioTimeBase).value
        if audioFIFOStart == nil {
            // On an input's own timeline, audio that starts after the movie does is preceded by silence.
            let originSample = origin?.rescaled(to: audioTimeBase).value ?? itemStart
            audioFIFOStart = setup.timelineFromInputStart ? min(itemStart, originSample) : itemStart
        }
        let expected = audioFIFOStart! &+ Int64(fifo.count)
        let gap = itemStart &- expected
        var overlap = 0
        if gap > 0 && (setup.timelineFromInputStart || gap < Int64(setup.preset.audio.sampleRate) * 5) {
            // A hole in a file's audio, or samples a device lost: silence keeps every later sound in place.
            try appendSilence(gap)
        } else if gap < 0 && setup.timelineFromInputStart {
            // Audio that steps back over what is already queued: skip the part already there.
            overlap = Int(min(-gap, Int64(item.frame.sampleCount)))
        }
        guard !audioDone else { return }
        try fifo.append(item.frame, skipping: overlap)
        if origin == nil {
            guard !setup.hasVideo else {
                // Audio from before the first picture: keep at most two seconds of it until the picture comes.
                let excess = fifo.count - 2 * setup.preset.audio.sampleRate
                if excess > 0 {
                    fifo.drain(excess)
                    audioFIFOStart! += Int64(excess)
                }
                return
            }
            origin = Timestamp(value: audioFIFOStart!, timeBase: audioTimeBase)
        }
        try encodeQueuedAudio(final: false)
    }

    /// Queues `count` samples of silence, encoding as it goes once the timeline has its origin (so a long
    /// hole in a file costs no memory).
    private func appendSilence(_ count: Int64) throws {
        guard let fifo = audioFIFO else { return }
        var remaining = count
        while remaining > 0 && !audioDone {
            let chunk = Int(min(remaining, Int64(setup.preset.audio.sampleRate)))
            try fifo.appendSilence(chunk)
            remaining -= Int64(chunk)
            if origin != nil { try encodeQueuedAudio(final: false) }
        }
    }

    /// Encodes whole AAC frames from the FIFO (and with `final`, the last partial one), from the session
    /// origin on and up to the duration limit.
    private func encodeQueuedAudio(final: Bool) throws {
        guard let fifo = audioFIFO, let encoder = audioEncoder, let origin, var fifoStart = audioFIFOStart else { return }
        defer { audioFIFOStart = fifoStart }
        let originSample = origin.rescaled(to: audioTimeBase).value
        if fifoStart < originSample {
            let trim = Int(min(originSample - fifoStart, Int64(fifo.count)))
            fifo.drain(trim)
            fifoStart += Int64(trim)
        }
        let frameSize = encoder.encoder.frameSize
        let limit = setup.limits.maxDuration.map { Int64(($0 * Double(setup.preset.audio.sampleRate)).rounded()) }
        while !audioDone && (fifo.count >= frameSize || (final && fifo.count > 0)) {
            let pts = fifoStart - originSample
            var count = min(frameSize, fifo.count)
            if let limit {
                if pts >= limit {
                    audioDone = true
                    break
                }
                count = Int(min(Int64(count), limit - pts))
            }
            try encoder.encode { frame in
                _ = try fifo.read(into: frame, sampleCount: count)
                frame.pts = pts
            }
            fifoStart += Int64(count)
            audioSamplesEncoded += Int64(count)
            if let limit, pts + Int64(count) >= limit { audioDone = true }
            if count < frameSize { break }  // a short frame is the last one the encoder takes
        }
        try encoder.collectPackets { try write($0, stream: audioStream) }
    }

    // MARK: encoding and muxing

    private func send(_ frame: Frame?, to encoder: Encoder, stream: Int) throws {
        let start = CPUClock.threadNanoseconds()
        let muxBefore = muxNanoseconds
        defer {
            // Encoder time is the call's CPU time less the muxing done inside it.
            encodeNanoseconds[encoder.mediaType, default: 0] +=
                CPUClock.threadNanoseconds() - start - (muxNanoseconds - muxBefore)
        }
        if try encoder.send(frame) == .outputFull {
            try drainPackets(from: encoder, stream: stream)
            _ = try encoder.send(frame)
        }
        try drainPackets(from: encoder, stream: stream)
    }

    private func drainPackets(from encoder: Encoder, stream: Int) throws {
        while try encoder.receive(into: packet) == .received {
            if packet.duration == 0 && encoder.mediaType == .video { packet.duration = 1 }
            try write(packet, stream: stream)
        }
    }

    private func write(_ packet: Packet, stream: Int) throws {
        guard let writer else { return }
        packet.streamIndex = stream
        let start = CPUClock.threadNanoseconds()
        let outcome = try writer.submit(packet)
        muxNanoseconds += CPUClock.threadNanoseconds() - start
        if case .limitReached(let reason) = outcome { stopReason = reason }
    }

    private func finalize() -> RecordingResult {
        var finalized = false
        if let writer {
            do {
                let limitStopped = [StopReason.maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(stopReason)
                if stopReason != .failed && !limitStopped {
                    try flushEncoders()
                }
                releaseHeldPicture()
                stopAudioEncoder(flush: false)
                try writer.finish()
                finalized = true
            } catch {
                writer.abandon()
                if stopReason != .failed { errorMessage = "\(error)" }
                if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace { stopReason = .diskFull }
                else if stopReason != .diskFull { stopReason = .failed }
            }
        }
        stopAudioEncoder(flush: false)
        let stages = stageTimes()
        // Report what the file holds, which a size limit may have cut shorter than what was encoded.
        let fileVideoFrames = videoStream >= 0 ? writer?.writtenPackets[videoStream] ?? 0 : 0
        let videoSeconds = videoStream >= 0 ? writer?.writtenSeconds(videoStream) ?? 0 : 0
        let audioEnd = audioStream >= 0 ? writer?.writtenEnd[audioStream] ?? 0 : 0
        // AAC packets are stamped earlier by the encoder's priming delay, which the file's edit list trims: the
        // last written packet's end is the media the track plays.
        let cut = writer?.stopReason != nil
        let fileAudioSamples = cut ? min(audioSamplesEncoded, max(0, audioEnd)) : audioSamplesEncoded
        // A limit that stops the recording before a requested track has anything in the file leaves no
        // usable movie (a 1080p keyframe larger than the size limit, a disk that fills at once).
        let limitStopped = [StopReason.maxFileSizeReached, .diskSpaceLimitReached, .diskFull].contains(stopReason)
        let missingTrack = limitStopped && ((setup.hasVideo && fileVideoFrames == 0) || (setup.hasAudio && fileAudioSamples == 0))
        if finalized && missingTrack {
            let track = setup.hasVideo && fileVideoFrames == 0 ? "the first picture" : "the first audio"
            errorMessage = stopReason == .maxFileSizeReached
                ? "the size limit was reached before \(track) fit in the file: raise the max size or use a smaller preset"
                : "the disk filled before \(track) fit in the file: free space on it or record elsewhere"
        }
        let usable = finalized && (fileVideoFrames > 0 || fileAudioSamples > 0) && !missingTrack && stopReason != .failed
        var bytes: Int64 = 0
        if usable {
            var info = stat()
            let inPlace = setup.temporaryPath == setup.outputPath
            if stat(setup.temporaryPath, &info) == 0 && (inPlace || rename(setup.temporaryPath, setup.outputPath) == 0) {
                bytes = Int64(info.st_size)
            } else {
                // The movie is complete; keep it where it is rather than lose it, and say where.
                stopReason = .failed
                errorMessage = "cannot move the finished movie to \(setup.outputPath) (\(String(cString: strerror(errno)))); it is at \(setup.temporaryPath)"
            }
        } else {
            unlink(setup.temporaryPath)
        }
        if let problem = writer?.finalizationProblem { errorMessage = errorMessage ?? problem }
        let recorded = usable && bytes > 0
        if !recorded && stopReason != .failed && errorMessage == nil {
            errorMessage = "nothing was captured before the recording stopped"
        }
        let audioSeconds = Double(fileAudioSamples) / Double(setup.preset.audio.sampleRate)
        return RecordingResult(
            output: setup.outputPath, stopReason: stopReason ?? .stopped, recordedSuccessfully: recorded,
            duration: recorded ? max(videoSeconds, audioSeconds) : 0,
            bytes: bytes, videoFrames: recorded ? fileVideoFrames : 0, droppedFrames: droppedFrames,
            audioSamples: recorded ? fileAudioSamples : 0, preset: setup.preset.name,
            elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
            videoDevice: setup.videoDevice, audioDevice: setup.audioDevice, error: errorMessage, still: stillWritten,
            stages: stages, fragments: writer?.fragmentCount ?? 0, finalizationBytes: recorded ? writer?.finalizationBytes : nil,
            // Repeats counted as they were encoded; a limit cut can leave some out of the file.
            duplicatedFrames: recorded ? min(duplicatedFrames, max(0, fileVideoFrames - 1)) : nil)
    }

    private func flushEncoders() throws {
        if let encoder = videoEncoder {
            try showHeldPicture()
            try send(nil, to: encoder, stream: videoStream)
            _ = try writer?.endStream(videoStream)
        }
        if let encoder = audioEncoder {
            if origin != nil { try encodeQueuedAudio(final: true) }
            stopAudioEncoder(flush: true)
            try encoder.collectPackets { try write($0, stream: audioStream) }
            _ = try writer?.endStream(audioStream)
        }
    }

    /// Ends the audio encoder's thread (once), taking its CPU time for the stage report.
    private func stopAudioEncoder(flush: Bool) {
        guard let encoder = audioEncoder, audioEncoderRunning else { return }
        audioEncoderRunning = false
        encodeNanoseconds[.audio] = encoder.finish(flush: flush)
    }

    /// Called on the engine thread once the readers have ended and the file is finished.
    private func stageTimes() -> StageTimes {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let readers = readers.map(\.stageClock.snapshot)
        let engineThread = CPUClock.threadNanoseconds() - threadStart
        let process = CPUClock.processNanoseconds() - processStart
        // The video encoder is called on this thread; the audio encoder runs on a thread of its own.
        let audioThread = encodeNanoseconds[.audio] ?? 0
        let ownThreads = engineThread + audioThread + readers.reduce(0) { $0 + $1.thread }
        let encode = encodeNanoseconds[.video] ?? 0
        var times = StageTimes()
        times.readDecode = seconds(readers.reduce(0) { $0 + $1.readDecode })
        times.convert = seconds(readers.reduce(0) { $0 + $1.convert })
        times.encodeVideo = seconds(encodeNanoseconds[.video] ?? 0)
        times.encodeAudio = seconds(encodeNanoseconds[.audio] ?? 0)
        times.mux = seconds(muxNanoseconds)
        times.engineOther = seconds(max(0, engineThread - encode - muxNanoseconds))
        times.codecThreads = seconds(max(0, process - ownThreads))
        times.total = seconds(process)
        return times
    }

    private var droppedFrames: Int {
        readers.filter { $0.spec.isPaced && $0.carriesVideo }.reduce(0) { total, reader in total + reader.statistics.droppedCount }
    }

    private func reportProgress() {
        let now = MonotonicClock.nanoseconds()
        guard now - lastProgress.time >= 500_000_000 else { return }
        let interval = Double(now - lastProgress.time) / 1e9
        let fps = lastProgress.time == 0 ? 0 : Double(videoFrames - lastProgress.frames) / interval
        lastProgress = (now, videoFrames)
        let media = max(Double(cadence.nextSlot) * videoTimeBase.doubleValue,
                        Double(audioSamplesEncoded) / Double(setup.preset.audio.sampleRate))
        events(.progress(RecordingProgress(
            elapsed: Double(now - startedAt) / 1e9, mediaDuration: media, bytes: writer?.projectedFileSize ?? 0,
            videoFrames: videoFrames, droppedFrames: droppedFrames, framesPerSecond: fps, inputDuration: setup.inputDuration)))
    }
}
