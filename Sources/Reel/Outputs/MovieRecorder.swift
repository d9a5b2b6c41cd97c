import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization

/// One movie output of a session, on a thread of its own: takes the captured items the session hands it
/// (OutputQueue), puts them on the movie's clock, applies the duration limit, encodes H.264 and AAC and hands
/// packets to the MovieWriter, which applies the size and disk limits. A limit stops this movie only: it is
/// finalized at once and the output takes no more. AAC runs on an EncoderThread beside it.
final class MovieRecorder: @unchecked Sendable {
    struct Setup: Sendable {
        /// Where the movie is written until finalized: the output path itself when fragments keep it
        /// playable all along, else a hidden temporary name.
        var temporaryPath: String
        var fragmentInterval: Double
        var fragmentMemoryLimit: Int64
        var outputPath: String
        var folder: String
        var preset: Preset
        var limits: RecordingLimits
        var rotation: Int
        var hasVideo: Bool
        /// The picture rendition this movie takes (its size, see PictureRenditions).
        var rendition: Int
        /// What the video is tagged with (the rendition's ColourPlan output).
        var videoColour: ColourDescription
        var hasAudio: Bool
        /// The sample rate and channels the session captures audio in; a preset that differs resamples.
        var captureAudio: (sampleRate: Int, channels: Int)
        /// Unpaced inputs (files, lavfi with realtime=0): the movie's timeline is the inputs' own from their
        /// start (audio may lead the first picture). Live ones: the movie starts with the first picture.
        var timelineFromInputStart: Bool
        var videoDevice: String?
        var audioDevice: String?
        /// Seconds the input file lasts (a transcode), for progress.
        var inputDuration: Double?
    }

    let setup: Setup
    /// Where the session puts this movie's items.
    let queue: OutputQueue
    private let buffer: CaptureBuffer
    /// Pictures the session's readers dropped (shared by every output), for the result and progress.
    private let readerDrops: @Sendable () -> Int
    private let progress: @Sendable (RecordingProgress) -> Void
    private let startedAt: Int64
    /// Set once the movie wants nothing more (a limit, a failure, the end): the session stops handing it items.
    private let doneFlag = Atomic<Bool>(false)
    private let finalResult = Locked<RecordingResult?>(nil)
    private var thread: WorkerThread?

    // Encoding state, owned by the recorder's thread.
    private var videoEncoder: Encoder?
    private var audioEncoder: EncoderThread?
    private var audioEncoderRunning = false
    private var writer: MovieWriter?
    private let packet = Packet()
    private var audioFIFO: SampleFIFO?
    /// Converts the session's audio when this movie's preset asks for another rate or channel count.
    private var audioResampler: Resampler?
    /// Where converted samples land before they are queued (a FIFO and a frame sized for the largest block).
    private var conversion: (fifo: SampleFIFO, frame: Frame, capacity: Int)?
    private var videoStream = -1
    private var audioStream = -1
    private var origin: Timestamp? = nil
    private var cadence = VideoCadence()
    /// The latest picture, shown once the next one says for how long (see VideoCadence).
    private var heldPicture: CapturedItem? = nil
    private var duplicatedFrames = 0
    private var keyframes: KeyframeSchedule
    /// The picture as this movie's encoder gets it: a reference to the shared pixels (no copy) with this
    /// movie's own timestamp and keyframe flag (the shared frame is read-only: other outputs read it).
    private let videoInput = Frame()
    private var videoFrames = 0
    private var audioFIFOStart: Int64? = nil  // session time of the FIFO's first sample, in samples
    private var audioSamplesEncoded: Int64 = 0
    private var videoDone = false { didSet { if videoDone { videoWanted.store(false, ordering: .releasing) } } }
    private var audioDone = false { didSet { if audioDone { audioWanted.store(false, ordering: .releasing) } } }
    private let videoWanted = Atomic<Bool>(true)
    /// Pause, as asked from any thread; the recorder's thread carries it out at the next item.
    private let pauseRequested = Atomic<Bool>(false)
    /// Session time at which the pause took effect, while paused.
    private var pausedAt: Timestamp? = nil
    /// The first picture after a resume starts a new group of pictures.
    private var keyframeAtResume = false
    private let audioWanted = Atomic<Bool>(true)
    private var stopReason: StopReason? = nil
    private var errorMessage: String? = nil
    private var lastProgress: (time: Int64, frames: Int) = (0, 0)
    // CPU accounting (nanoseconds of this thread's CPU clock).
    private var encodeNanoseconds: [MediaType: Int64] = [.video: 0, .audio: 0]
    private var muxNanoseconds: Int64 = 0
    private var threadStart: Int64 = 0
    /// CPU time of this output's own threads (its thread and its AAC thread), once finished.
    private(set) var ownThreadNanoseconds: Int64 = 0

    /// Pictures a live output may have waiting before it drops new ones: 0.2 s at 30 fps (with the picture
    /// it holds and the one being encoded, the CaptureBuffer's 7 + 1 paced slots for one movie).
    static let livePictureQueue = 6

    init(setup: Setup, buffer: CaptureBuffer, paced: Bool, readerDrops: @escaping @Sendable () -> Int,
         progress: @escaping @Sendable (RecordingProgress) -> Void) {
        self.setup = setup
        self.buffer = buffer
        self.queue = OutputQueue(pictureLimit: paced ? MovieRecorder.livePictureQueue : nil)
        self.readerDrops = readerDrops
        self.progress = progress
        self.startedAt = MonotonicClock.nanoseconds()
        self.keyframes = KeyframeSchedule(interval: setup.fragmentInterval)
        if setup.timelineFromInputStart { origin = .zero(in: sessionTimeBase) }
    }

    private var videoTimeBase: Rational { setup.preset.videoFrameRate.inverted }
    private var audioTimeBase: Rational { Rational(1, Int32(setup.preset.audio.sampleRate)) }

    /// The movie has stopped taking items (finalized, or about to be).
    var isDone: Bool { doneFlag.load(ordering: .acquiring) }

    /// Whether the movie still wants items of a type (the duration limit can end one track before the other).
    func wants(_ type: MediaType) -> Bool {
        !isDone && (type == .video ? videoWanted.load(ordering: .acquiring) : audioWanted.load(ordering: .acquiring))
    }

    /// Starts the recorder's thread: it opens the encoders and the file, then encodes what the queue brings.
    func start() {
        thread = WorkerThread(name: "reel.output.movie") { [self] in run() }
    }

    /// Waits for the movie to be finalized and returns its result.
    func waitForResult() -> RecordingResult {
        thread?.join()
        return finalResult.withLock { $0! }
    }

    /// The result once finalized, else nil.
    var result: RecordingResult? { finalResult.withLock { $0 } }

    private func run() {
        threadStart = CPUClock.threadNanoseconds()
        do {
            try openOutput()
        } catch {
            stopReason = .failed
            errorMessage = "\(error)"
        }
        queue.beginLimiting()
        var finished = false
        if stopReason != nil { finish() ; finished = true }
        loop: while true {
            switch queue.take() {
            case .item(let type, let item):
                guard !finished else {
                    buffer.release(type, item.slot)
                    continue
                }
                do {
                    if try pausing(at: item) {
                        buffer.release(type, item.slot)
                        continue
                    }
                    if type == .video {
                        try encodeVideo(item)
                    } else {
                        defer { buffer.release(type, item.slot) }
                        try encodeAudio(item)
                    }
                } catch {
                    stopReason = .failed
                    errorMessage = "\(error)"
                }
                if stopReason == nil, let maxDuration = setup.limits.maxDuration, maxDuration > 0,
                   (videoDone || !setup.hasVideo), (audioDone || !setup.hasAudio) {
                    stopReason = .maxDurationReached
                }
                if stopReason != nil {
                    finish()
                    finished = true
                } else {
                    reportProgress()
                }
            case .end(let reason, let message):
                if !finished {
                    stopReason = reason
                    errorMessage = message
                    finish()
                }
                break loop
            }
        }
        for (type, item) in queue.close() { buffer.release(type, item.slot) }
    }

    /// Pauses or resumes the movie (AVCaptureMovieFileOutput's pauseRecording): while paused nothing is
    /// written; on resume the movie's timeline goes on from where it paused, without a hole, audio and video
    /// together, with a keyframe. Takes effect at the next captured item.
    func setPaused(_ paused: Bool) { pauseRequested.store(paused, ordering: .releasing) }

    var isPaused: Bool { pauseRequested.load(ordering: .acquiring) }

    /// Stops this movie only (the session goes on): what is queued before the request is still encoded,
    /// then the movie is finalized with `stopped`.
    func requestStop() { queue.end(.stopped, message: nil) }

    /// Finalizes the movie and publishes the result; the session stops handing it items.
    private func finish() {
        doneFlag.store(true, ordering: .releasing)
        let result = finalize()
        finalResult.withLock { $0 = result }
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
            if setup.captureAudio != (setup.preset.audio.sampleRate, setup.preset.audio.channels) {
                audioResampler = Resampler(outputRate: setup.preset.audio.sampleRate, outputChannels: setup.preset.audio.channels)
                conversion = (SampleFIFO(format: .floatPlanar, channels: setup.preset.audio.channels), Frame(), 0)
            }
        }
        let writer = try MovieWriter(path: setup.temporaryPath, encoders: encoders, rotationDegrees: setup.rotation,
                                     limits: setup.limits, folder: setup.folder, fragmentInterval: setup.fragmentInterval,
                                     fragmentMemoryLimit: setup.fragmentMemoryLimit)
        try writer.start()
        self.writer = writer
    }

    // MARK: pause

    /// Carries out a pause or resume asked for since the last item; true while paused (the item is not
    /// recorded). A pause shows the held picture up to the pause instant; a resume moves the movie's origin
    /// (and the audio queue's start) by the paused time, so the next item continues the timeline.
    private func pausing(at item: CapturedItem) throws -> Bool {
        let wanted = pauseRequested.load(ordering: .acquiring)
        guard let origin else { return false }  // before the first picture there is nothing to pause
        if wanted, pausedAt == nil {
            pausedAt = item.time
            let slots = cadence.arrive(time: VideoCadence.frames(of: item.time - origin, rate: setup.preset.videoFrameRate))
            if let held = heldPicture {
                heldPicture = nil
                defer { buffer.release(.video, held.slot) }
                try show(held.picture(setup.rendition), in: slots)
            }
        } else if !wanted, let paused = pausedAt {
            let gap = item.time - paused
            self.origin = origin + gap
            if let start = audioFIFOStart { audioFIFOStart = start + gap.rescaled(to: audioTimeBase).value }
            pausedAt = nil
            keyframeAtResume = true
        }
        return pausedAt != nil
    }

    // MARK: video

    /// Takes a picture (and releases its slot once shown): the held picture is shown in the output slots the
    /// cadence gives it, and this one is held in its place.
    private func encodeVideo(_ item: CapturedItem) throws {
        guard videoEncoder != nil, !videoDone else {
            buffer.release(.video, item.slot)
            return
        }
        if origin == nil { origin = item.time }
        let slots = cadence.arrive(time: VideoCadence.frames(of: item.time - origin!, rate: setup.preset.videoFrameRate))
        let previous = heldPicture
        heldPicture = item
        if let previous {
            defer { buffer.release(.video, previous.slot) }
            try show(previous.picture(setup.rendition), in: slots)
        }
    }

    /// Shows the held picture for as long as the cadence says (at the end of the input, or at a stop), then
    /// releases it.
    private func showHeldPicture() throws {
        guard let held = heldPicture else { return }
        heldPicture = nil
        defer { buffer.release(.video, held.slot) }
        try show(held.picture(setup.rendition), in: cadence.finish())
    }

    private func releaseHeldPicture() {
        if let held = heldPicture { buffer.release(.video, held.slot) }
        heldPicture = nil
    }

    /// Encodes one picture for each slot (a repeat after the first), up to the duration limit.
    private func show(_ picture: Frame, in slots: Range<Int64>) throws {
        guard let encoder = videoEncoder, !slots.isEmpty else { return }
        try videoInput.reference(picture)
        defer { videoInput.unref() }
        for slot in slots {
            if let limit = videoSlotLimit, slot >= limit {
                videoDone = true
                releaseHeldPicture()
                return
            }
            videoInput.pts = slot
            // Each fragment starts with a keyframe, so one comes at every multiple of the fragment interval.
            videoInput.forcesKeyframe = keyframes.forcesKeyframe(at: Double(slot) * videoTimeBase.doubleValue,
                                                                 isFirst: videoFrames == 0) || (keyframeAtResume && videoFrames > 0)
            keyframeAtResume = false
            try send(videoInput, to: encoder, stream: videoStream)
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
        guard audioFIFO != nil, !audioDone else { return }
        guard let resampler = audioResampler else {
            return try queueAudio(item.frame, start: item.time.rescaled(to: audioTimeBase).value, tolerance: 0)
        }
        // Another rate or channel count than the session captures: convert first. The converted samples
        // start as far before the block as swresample's delay; rounding them to this rate's samples may be
        // off by a sample or two, which is no gap.
        let start = item.time.rescaled(to: audioTimeBase).value - Int64(resampler.delay)
        guard let converted = try resampled(item.frame) else { return }
        try queueAudio(converted, start: start, tolerance: Int64(setup.preset.audio.sampleRate / 500))
    }

    /// The block in this movie's audio format, or nil when swresample kept all of it for now.
    private func resampled(_ block: Frame?) throws -> Frame? {
        guard let resampler = audioResampler, let conversion else { return nil }
        let count = try resampler.convert(block, into: conversion.fifo)
        guard count > 0 else { return nil }
        if !conversion.frame.hasBuffers || conversion.capacity < count {
            try conversion.frame.allocateAudio(sampleCount: max(count, 4096), format: .floatPlanar,
                                               channels: setup.preset.audio.channels, sampleRate: setup.preset.audio.sampleRate)
            self.conversion?.capacity = max(count, 4096)
        }
        try conversion.fifo.read(into: conversion.frame, sampleCount: count)
        return conversion.frame
    }

    /// Puts a block of samples in this movie's format, starting at sample `itemStart` of the session, into
    /// the FIFO: after silence where it leaves a hole, without the part that overlaps what is queued.
    private func queueAudio(_ block: Frame, start itemStart: Int64, tolerance: Int64) throws {
        guard let fifo = audioFIFO, !audioDone else { return }
        if audioFIFOStart == nil {
            // On an input's own timeline, audio that starts after the movie does is preceded by silence.
            let originSample = origin?.rescaled(to: audioTimeBase).value ?? itemStart
            audioFIFOStart = setup.timelineFromInputStart ? min(itemStart, originSample) : itemStart
        }
        var overlap = 0
        switch AudioPlacement.place(start: itemStart, expected: audioFIFOStart! &+ Int64(fifo.count),
                                    blockSamples: block.sampleCount, tolerance: tolerance,
                                    followsInputTimeline: setup.timelineFromInputStart, sampleRate: setup.preset.audio.sampleRate) {
        case .append: break
        case .silenceFirst(let samples): try appendSilence(samples)
        case .skipFirst(let samples): overlap = samples
        }
        guard !audioDone else { return }
        try fifo.append(block, skipping: overlap)
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
                if MovieVerdict.flushesEncoders(after: stopReason) { try flushEncoders() }
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
        let verdict = MovieVerdict(.init(
            stopReason: stopReason, finalized: finalized, hasVideo: setup.hasVideo, hasAudio: setup.hasAudio,
            fileVideoFrames: fileVideoFrames, audioSamplesEncoded: audioSamplesEncoded,
            audioEnd: audioStream >= 0 ? writer?.writtenEnd[audioStream] ?? 0 : 0, cut: writer?.stopReason != nil))
        let fileAudioSamples = verdict.fileAudioSamples
        if let problem = verdict.problem { errorMessage = problem }
        let usable = verdict.usable
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
            videoDevice: setup.videoDevice, audioDevice: setup.audioDevice, error: errorMessage, still: nil,
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
            if audioResampler != nil, audioFIFOStart != nil, let tail = try resampled(nil) {
                // What swresample still holds follows what is queued.
                try queueAudio(tail, start: audioFIFOStart! + Int64(audioFIFO?.count ?? 0), tolerance: 0)
            }
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

    /// This output's share of the CPU time, called on its thread once the file is finished. The session
    /// adds the readers' stages and the process total (see SessionEngine).
    private func stageTimes() -> StageTimes {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let ownThread = CPUClock.threadNanoseconds() - threadStart
        let audioThread = encodeNanoseconds[.audio] ?? 0
        ownThreadNanoseconds = ownThread + audioThread
        let encode = encodeNanoseconds[.video] ?? 0
        var times = StageTimes()
        times.encodeVideo = seconds(encode)
        times.encodeAudio = seconds(audioThread)
        times.mux = seconds(muxNanoseconds)
        times.engineOther = seconds(max(0, ownThread - encode - muxNanoseconds))
        return times
    }

    /// Pictures this movie lacks because they were dropped: by the readers (the pools were full) or by this
    /// output (it fell behind a live source).
    private var droppedFrames: Int { readerDrops() + queue.droppedCount }

    private func reportProgress() {
        let now = MonotonicClock.nanoseconds()
        guard now - lastProgress.time >= 500_000_000 else { return }
        let interval = Double(now - lastProgress.time) / 1e9
        let fps = lastProgress.time == 0 ? 0 : Double(videoFrames - lastProgress.frames) / interval
        lastProgress = (now, videoFrames)
        let media = max(Double(cadence.nextSlot) * videoTimeBase.doubleValue,
                        Double(audioSamplesEncoded) / Double(setup.preset.audio.sampleRate))
        progress(RecordingProgress(
            elapsed: Double(now - startedAt) / 1e9, mediaDuration: media, bytes: writer?.projectedFileSize ?? 0,
            videoFrames: videoFrames, droppedFrames: droppedFrames, framesPerSecond: fps, inputDuration: setup.inputDuration))
    }
}
