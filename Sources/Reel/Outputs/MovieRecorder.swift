import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization

/// One movie output of a session, on a thread of its own: takes the captured items the session hands it
/// (OutputQueue), puts them on the movie's clock, applies the duration limit, encodes H.264 and AAC and hands
/// packets to its file's MovieWriter, which applies the size and disk limits. A limit stops this movie only:
/// it is finalized at once and the output takes no more. AAC runs on an EncoderThread beside it.
///
/// A segmented movie (Setup.segmentation) writes consecutive files (MovieSegment): at each boundary (a frame
/// slot and the audio sample at the same instant, see SegmentBoundaries) the picture is forced to be a
/// keyframe, the audio of the ending file is encoded up to the boundary and its encoder drained, and the next
/// file begins with a fresh AAC encoder. Video packets go to the file whose range holds their time: with a
/// closed GOP every picture before the keyframe leaves the encoder before it, so each file is whole.
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
        var rotation: DisplayTurn
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
        /// Consecutive files instead of one (outputPath is then the name pattern, see SegmentNaming).
        var segmentation: Segmentation? = nil
        /// A segment may replace a file of the same name (the first one's name is checked before the start).
        var overwrite = false
        /// The session clock's zero (monotonic nanoseconds), which pauses are placed on.
        var sessionStart: Int64 = 0
        /// A movie stopped before its end is deleted, not finalized (RecordingConfiguration.discardsStoppedMovie).
        var discardsStoppedMovie = false
    }

    let setup: Setup
    /// Where the session puts this movie's items.
    let queue: OutputQueue
    private let buffer: CaptureBuffer
    /// Pictures the session's readers dropped (shared by every output), for the result and progress.
    private let readerDrops: @Sendable () -> Int
    private let progress: @Sendable (RecordingProgress) -> Void
    /// Segment events (segmentStarted, segmentFinished), from this movie's thread.
    private let segmentEvents: @Sendable (RecordingEvent) -> Void
    private let startedAt: Int64
    /// Set once the movie wants nothing more (a limit, a failure, the end): the session stops handing it items.
    private let doneFlag = Atomic<Bool>(false)
    private let finalResult = Locked<RecordingResult?>(nil)
    /// The last progress report (twice a second while recording), for whoever asks.
    let latestProgress = Locked<RecordingProgress?>(nil)
    private var thread: WorkerThread?

    // Encoding state, owned by the recorder's thread.
    private var videoEncoder: Encoder?
    /// The files being written, oldest first: the last takes the audio and new pictures; an older one stays
    /// open until the video encoder has given out its last pictures. One for an unsegmented movie.
    private var segments: [MovieSegment] = []
    /// Every file finished so far, in order (segment results with what finalizing them gave).
    private var finishedSegments: [MovieSegment.Outcome] = []
    private let boundaries: SegmentBoundaries
    private let naming: SegmentNaming?
    /// The next segment boundary, planned but not yet reached by the video (audio waits there for it).
    private var nextBoundary: SegmentBoundaries.Boundary?
    private var sizeCut: SegmentSizeCut?
    private var retention: SegmentRetention
    /// Pictures given to the video encoder and packets it gave back: the difference is in flight.
    private var picturesSent = 0
    private var videoPacketsOut = 0
    private var nextSlotToSend: Int64 = 0
    private var audioEncodeNanoseconds: Int64 = 0
    /// A segmented movie's last AAC frame of samples encoded: the next segment's encoder is primed with them
    /// (encoded before its start, and trimmed by its edit list as any encoder priming is), so its first frame
    /// decodes as cleanly as the middle of a movie instead of starting from silence.
    private var preroll: SampleFIFO?
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
    /// Where a stop ends the audio (in samples from the origin): at the video's end (see flushEncoders).
    private var audioEndCap: Int64? = nil
    private var videoDone = false { didSet { if videoDone { videoWanted.store(false, ordering: .releasing) } } }
    private var audioDone = false { didSet { if audioDone { audioWanted.store(false, ordering: .releasing) } } }
    private let videoWanted = Atomic<Bool>(true)
    /// Pauses as asked from any thread, on the session's clock; the recorder's thread applies them to the items
    /// by their times (`pauseCursor`: the first pause not yet over).
    private let pauses: PauseRequests
    private var pauseCursor = 0
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

    /// Tests only (internal, not reachable from the command line or the public API): the movie written to a
    /// path fails as an encoder would once it has encoded this many pictures.
    static let injectedFailures = Locked<[String: Int]>([:])
    /// This movie's injected failure, read once when it starts (no lock per picture).
    private lazy var injectedFailure: Int? = MovieRecorder.injectedFailures.withLock { $0[setup.outputPath] }

    /// Pictures a live output may have waiting before it drops new ones: 0.2 s at 30 fps (with the picture
    /// it holds and the one being encoded, the CaptureBuffer's 7 + 1 paced slots for one movie).
    static let livePictureQueue = 6

    init(setup: Setup, buffer: CaptureBuffer, paced: Bool, readerDrops: @escaping @Sendable () -> Int,
         progress: @escaping @Sendable (RecordingProgress) -> Void,
         segmentEvents: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) {
        self.setup = setup
        self.buffer = buffer
        self.segmentEvents = segmentEvents
        self.boundaries = SegmentBoundaries(frameRate: setup.preset.videoFrameRate, sampleRate: setup.preset.audio.sampleRate)
        self.naming = setup.segmentation.map { _ in SegmentNaming(template: setup.outputPath) }
        self.sizeCut = setup.segmentation?.size.map { SegmentSizeCut(size: $0) }
        self.retention = SegmentRetention(keep: setup.segmentation?.keep)
        // Live movies pause at the instant asked; a file's timeline has no such clock: at the next item.
        self.pauses = PauseRequests(sessionStart: setup.timelineFromInputStart ? nil : setup.sessionStart)
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
    func setPaused(_ paused: Bool) { pauses.set(paused) }

    var isPaused: Bool { pauses.isPaused }

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
        if setup.hasVideo {
            videoEncoder = try Encoder(video: setup.preset.videoEncoderSettings(colour: setup.videoColour), globalHeader: MovieWriter.needsGlobalHeader)
            videoStream = 0
        }
        if setup.hasAudio {
            audioStream = setup.hasVideo ? 1 : 0
            audioFIFO = SampleFIFO(format: .floatPlanar, channels: setup.preset.audio.channels)
            if setup.segmentation != nil { preroll = SampleFIFO(format: .floatPlanar, channels: setup.preset.audio.channels) }
            if setup.captureAudio != (setup.preset.audio.sampleRate, setup.preset.audio.channels) {
                audioResampler = Resampler(outputRate: setup.preset.audio.sampleRate, outputChannels: setup.preset.audio.channels)
                conversion = (SampleFIFO(format: .floatPlanar, channels: setup.preset.audio.channels), Frame(), 0)
            }
        }
        try openSegment(at: SegmentBoundaries.Boundary(slot: 0, sample: 0))
    }

    // MARK: segments

    /// Opens the next file, starting at `boundary`, and plans the boundary after it.
    private func openSegment(at boundary: SegmentBoundaries.Boundary) throws {
        let index = (segments.last?.index ?? finishedSegments.last?.result.index ?? 0) + 1
        // Every name the pattern makes was checked before the recording began (OutputPlan); one that a
        // {date}/{time} field makes anew, or that another program took since, is not replaced: the segment
        // gets the next free name beside it ("cam-…-14-05-09 (2).mov"), which its result and events report.
        let path = naming.map { naming in
            SegmentNaming.freeName(for: naming.path(index: index, date: Date())) { candidate in
                setup.overwrite || access(candidate, F_OK) != 0
            }
        } ?? setup.outputPath
        let writingPath = setup.temporaryPath == setup.outputPath ? path
            : (naming == nil ? setup.temporaryPath : CaptureSession.partialPath(for: path))
        let (limits, segmentSizeBinds) = segmentLimits(otherOpen: segments)
        let segment = try MovieSegment(index: index, outputPath: path, writingPath: writingPath, start: boundary, setup: setup,
                                       videoEncoder: videoEncoder, limits: limits, sizeLimitIsSegments: segmentSizeBinds)
        segments.append(segment)
        keyframes = KeyframeSchedule(interval: setup.fragmentInterval)
        if let duration = setup.segmentation?.duration {
            nextBoundary = setup.hasVideo ? boundaries.durationBoundary(index: index, seconds: duration)
                                          : boundaries.audioOnlyBoundary(index: index, seconds: duration)
        } else {
            nextBoundary = nil
        }
        if naming != nil { segmentEvents(.segmentStarted(output: path, index: index)) }
    }

    /// A file's limits: the movie's, with the size the smaller of the segment size and what the recording's
    /// total size leaves after the files finished and the others still open.
    private func segmentLimits(otherOpen: [MovieSegment]) -> (RecordingLimits, segmentSizeBinds: Bool) {
        var limits = setup.limits
        guard let segmentation = setup.segmentation else { return (limits, false) }
        if segmentation.deletesOldestForFreeSpace { limits.minFreeDiskSpace = max(limits.minFreeDiskSpace, 0) }
        let used = finishedSegments.reduce(Int64(0)) { $0 + $1.result.bytes } + otherOpen.reduce(Int64(0)) { $0 + $1.writer.projectedFileSize }
        let remaining = setup.limits.maxFileSize.map { max(0, $0 - used) }
        switch (segmentation.size, remaining) {
        case (let size?, let remaining?):
            limits.maxFileSize = min(size, remaining)
            return (limits, size <= remaining)
        case (let size?, nil):
            limits.maxFileSize = size
            return (limits, true)
        case (nil, let remaining):
            limits.maxFileSize = remaining
            return (limits, false)
        }
    }

    /// The video (or, without video, the audio) reached the planned boundary: the next file begins there, the
    /// picture at the boundary its first (a keyframe). The current file takes the audio up to the boundary
    /// as it comes, then its AAC encoder is drained and it is finalized once its last pictures are out.
    private func commitBoundary() throws {
        guard let boundary = nextBoundary, let current = segments.last else { return }
        current.end = boundary
        if !setup.hasVideo { current.videoEnded = true }
        try openSegment(at: boundary)
        if origin != nil { try encodeQueuedAudio(final: false) }
        try closeEndedSegments()
    }

    /// Drains a file's AAC encoder into it and ends its audio track.
    private func endAudio(of segment: MovieSegment) throws {
        guard !segment.audioEnded, let encoder = segment.audioEncoder else { return }
        segment.finishAudioEncoder(flush: true)
        try encoder.collectPackets { try write($0, stream: audioStream, to: segment) }
        segment.audioEnded = true
        _ = try segment.writer.endStream(audioStream)
    }

    /// Finalizes the files, other than the last, that will get no more packets.
    private func closeEndedSegments() throws {
        while segments.count > 1, segments[0].videoEnded, segments[0].audioEnded {
            finishSegment(segments.removeFirst(), stopReason: nil)
        }
    }

    /// Finalizes a file and reports it; a segment then counts towards loop recording's retention.
    private func finishSegment(_ segment: MovieSegment, stopReason: StopReason?) {
        var outcome = segment.finalize(stopReason: stopReason, errorMessage: stopReason == nil ? nil : errorMessage,
                                       videoStream: videoStream, audioStream: audioStream,
                                       sampleRate: setup.preset.audio.sampleRate)
        audioEncodeNanoseconds += segment.audioEncoderNanoseconds
        outcome.result.start = setup.hasVideo ? Double(segment.start.slot) * videoTimeBase.doubleValue
                                              : Double(segment.start.sample) / Double(setup.preset.audio.sampleRate)
        finishedSegments.append(outcome)
        guard naming != nil else { return }
        segmentEvents(.segmentFinished(outcome.result))
        if outcome.usable {
            for deleted in retention.finished(result: finishedSegments.count - 1, path: outcome.result.output) {
                finishedSegments[deleted].result.deleted = true
            }
        }
        if stopReason == nil, outcome.stopReason == .failed || outcome.stopReason == .diskFull {
            // A segment that could not be finalized ends the recording: the next would fare no better.
            self.stopReason = outcome.stopReason
            errorMessage = outcome.errorMessage
        }
        // What the recording's total size leaves for the files still open.
        if setup.limits.maxFileSize != nil {
            for (position, open) in segments.enumerated() {
                var others = segments
                others.remove(at: position)
                open.writer.setMaxFileSize(segmentLimits(otherOpen: others).0.maxFileSize)
            }
        }
    }

    /// Loop recording: before free space would fall under the floor, the oldest finished segments go.
    private func makeRoom(for bytes: Int, in segment: MovieSegment) {
        guard setup.segmentation?.deletesOldestForFreeSpace == true, setup.limits.minFreeDiskSpace > 0 else { return }
        let margin = Int64(max(1 << 20, 4 * bytes))
        while segment.writer.freeSpaceHeadroom() < margin, let deleted = retention.deleteOldest() {
            finishedSegments[deleted].result.deleted = true
            for open in segments { open.writer.refreshDiskSpace() }
        }
    }

    // MARK: pause

    /// Whether an item falls in a paused stretch; true while paused (the item is not recorded). Pauses are
    /// requested on the session's clock (PauseRequests), so they cut the same stretch from the pictures and
    /// the sound whatever order their items are taken in, and however late. Entering a pause shows the held
    /// picture up to the pause instant; leaving it moves the movie's origin (and the audio queue's start) by
    /// the paused time, so the next item continues the timeline, with a keyframe.
    private func pausing(at item: CapturedItem) throws -> Bool {
        guard origin != nil else { return false }  // before the first picture there is nothing to pause
        let time = item.time.rescaled(to: sessionTimeBase).value
        while let interval = pauses.interval(at: pauseCursor, itemTime: time, paused: pausedAt != nil) {
            if pausedAt == nil {
                guard time >= interval.start else { return false }
                let origin = self.origin!
                let instant = max(Timestamp(value: interval.start, timeBase: sessionTimeBase), origin)
                pausedAt = instant
                let slots = cadence.arrive(time: VideoCadence.frames(of: instant - origin, rate: setup.preset.videoFrameRate))
                if let held = heldPicture {
                    heldPicture = nil
                    defer { buffer.release(.video, held.slot) }
                    try show(held.picture(setup.rendition), in: slots)
                }
                // The picture that came at the pause is not recorded: the first after the resume takes its place.
                cadence.letGoOfHeldPicture()
            }
            guard let end = interval.end, time >= end else { return true }
            let gap = max(Timestamp(value: end, timeBase: sessionTimeBase), pausedAt!) - pausedAt!
            self.origin = self.origin! + gap
            if let start = audioFIFOStart { audioFIFOStart = start + gap.rescaled(to: audioTimeBase).value }
            pausedAt = nil
            keyframeAtResume = true
            pauseCursor += 1
        }
        return false
    }

    // MARK: video

    /// Takes a picture (and releases its slot once shown): the held picture is shown in the output slots the
    /// cadence gives it, and this one is held in its place.
    private func encodeVideo(_ item: CapturedItem) throws {
        // A movie added at a size of its own starts with the first picture made at that size (the ones already
        // captured when it was added have only the sizes of the movies before it).
        guard videoEncoder != nil, !videoDone, item.hasPicture(setup.rendition) else {
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
    private func showHeldPicture(atLeastUntil minimumEnd: Int64 = 0) throws {
        guard let held = heldPicture else { return }
        heldPicture = nil
        defer { buffer.release(.video, held.slot) }
        try show(held.picture(setup.rendition), in: cadence.finish(atLeast: minimumEnd))
    }

    private func releaseHeldPicture() {
        if let held = heldPicture { buffer.release(.video, held.slot) }
        heldPicture = nil
    }

    /// Encodes one picture for each slot (a repeat after the first), up to the duration limit.
    private func show(_ picture: Frame, in slots: Range<Int64>) throws {
        guard let encoder = videoEncoder, !slots.isEmpty else { return }
        // A limit reached while writing ends the showing; a stop already under way (the last picture at the
        // end) does not.
        let reasonBefore = stopReason
        try videoInput.reference(picture)
        defer { videoInput.unref() }
        for slot in slots {
            if let limit = videoSlotLimit, slot >= limit {
                videoDone = true
                releaseHeldPicture()
                return
            }
            if let boundary = nextBoundary, slot >= boundary.slot { try commitBoundary() }
            if let failAt = injectedFailure, videoFrames >= failAt {
                throw FFmpegError(call: "avcodec_send_frame", message: "an encoder failure injected by a test")
            }
            videoInput.pts = slot
            // Each segment and each fragment starts with a keyframe: one comes at a segment's first picture and
            // at every multiple of the fragment interval from there.
            let segmentStart = segments.last?.start.slot ?? 0
            let startsSegment = slot == segmentStart && videoFrames > 0
            videoInput.forcesKeyframe = keyframes.forcesKeyframe(at: Double(slot - segmentStart) * videoTimeBase.doubleValue,
                                                                 isFirst: videoFrames == 0 || startsSegment)
                || startsSegment || (keyframeAtResume && videoFrames > 0)
            keyframeAtResume = false
            nextSlotToSend = slot + 1
            picturesSent += 1
            try send(videoInput, to: encoder, stream: videoStream)
            if slot > slots.lowerBound { duplicatedFrames += 1 }
            videoFrames += 1
            if stopReason != reasonBefore { return }
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
    /// origin on and up to the duration limit, into the files in order: a file the video has left (its end
    /// is committed) takes audio up to its end, the last frame short, and its encoder is drained; the last
    /// file takes audio up to the planned boundary and waits there for the video (audio alone commits it).
    private func encodeQueuedAudio(final: Bool) throws {
        guard let fifo = audioFIFO, let origin, let queuedStart = audioFIFOStart else { return }
        let originSample = origin.rescaled(to: audioTimeBase).value
        if queuedStart < originSample {
            let trim = Int(min(originSample - queuedStart, Int64(fifo.count)))
            fifo.drain(trim)
            audioFIFOStart = queuedStart + Int64(trim)
        }
        while !audioDone, let segment = segments.first(where: { !$0.audioEnded }) {
            let position = audioFIFOStart! - originSample
            if segment.end == nil, let planned = nextBoundary, !setup.hasVideo, position + Int64(fifo.count) >= planned.sample {
                try commitBoundary()
                continue
            }
            let wall = segment.end?.sample ?? nextBoundary?.sample
            try encodeAudio(into: segment, until: wall, closes: segment.end != nil, final: final, originSample: originSample)
            guard let end = segment.end, audioFIFOStart! - originSample >= end.sample else { break }
            try endAudio(of: segment)
            try closeEndedSegments()
        }
    }

    /// Encodes AAC frames from the FIFO into one file, up to `wall` (a segment boundary, exclusive) and the
    /// duration limit. Only the frame that `closes` the file's audio at the wall, or the `final` one, is short.
    private func encodeAudio(into segment: MovieSegment, until wall: Int64?, closes: Bool, final: Bool,
                             originSample: Int64) throws {
        guard let fifo = audioFIFO, let encoder = segment.audioEncoder, var fifoStart = audioFIFOStart else { return }
        defer { audioFIFOStart = fifoStart }
        let frameSize = encoder.encoder.frameSize
        let durationLimit = setup.limits.maxDuration.map { Int64(($0 * Double(setup.preset.audio.sampleRate)).rounded()) }
        let limit = [durationLimit, audioEndCap].compactMap { $0 }.min()
        let waitPoint = final ? nil : audioWaitPoint(originSample: originSample)
        if let preroll, segment.index > 1, segment.audioSamplesEncoded == 0, preroll.count == frameSize, fifo.count > 0 {
            try encoder.encode { frame in
                _ = try preroll.read(into: frame, sampleCount: frameSize)
                frame.pts = -Int64(frameSize)
            }
        }
        while !audioDone {
            let position = fifoStart - originSample
            if let limit, position >= limit {
                audioDone = true
                break
            }
            var end = position + Int64(frameSize)
            if let limit { end = min(end, limit) }
            if let wall, end > wall {
                guard closes else { break }  // the video has not reached the boundary yet
                end = wall
            }
            if let waitPoint, end > waitPoint { break }
            var count = Int(end - position)
            guard count > 0 else { break }
            if fifo.count < count {
                guard final, fifo.count > 0 else { break }
                count = fifo.count
            }
            try encoder.encode { frame in
                _ = try fifo.read(into: frame, sampleCount: count)
                frame.pts = position - segment.start.sample
                if let preroll {
                    try preroll.append(frame)
                    if preroll.count > frameSize { preroll.drain(preroll.count - frameSize) }
                }
            }
            fifoStart += Int64(count)
            audioSamplesEncoded += Int64(count)
            segment.audioSamplesEncoded += Int64(count)
            if let limit, position + Int64(count) >= limit { audioDone = true }
            if count < frameSize { break }  // a short frame is the last one the encoder takes
        }
        try encoder.collectPackets { try write($0, stream: audioStream, to: segment) }
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
            try writeVideo(packet)
        }
    }

    /// A video packet goes to the file whose range holds its time, on that file's timeline; the files before
    /// it will get no more pictures.
    private func writeVideo(_ packet: Packet) throws {
        videoPacketsOut += 1
        guard let position = segments.firstIndex(where: { $0.end == nil || packet.pts < $0.end!.slot }) else {
            packet.unref()
            return
        }
        for earlier in segments[..<position] where !earlier.videoEnded {
            earlier.videoEnded = true
            _ = try earlier.writer.endStream(videoStream)
        }
        let segment = segments[position]
        packet.pts -= segment.start.slot
        packet.dts -= segment.start.slot
        let size = packet.size, isKeyframe = packet.isKeyframe
        try write(packet, stream: videoStream, to: segment)
        if position > 0 { try closeEndedSegments() }
        if var cut = sizeCut, segment === segments.last {
            cut.note(videoPacketBytes: size, isKeyframe: isKeyframe)
            sizeCut = cut
            let inFlight = max(0, picturesSent - videoPacketsOut)
            let audioPerPicture = Double(setup.preset.audio.bitRate) / 8 * videoTimeBase.doubleValue
            if nextBoundary == nil,
               cut.mustCut(projected: segment.writer.projectedFileSize, picturesInFlight: inFlight, audioBytesPerPicture: audioPerPicture) {
                planSizeCut()
            }
        }
    }

    /// Ends the current file at the next picture that can still begin a new one.
    private func planSizeCut() {
        guard nextBoundary == nil, let origin, let fifoStart = audioFIFOStart else {
            if nextBoundary == nil { nextBoundary = boundaries.earliestCut(nextSlot: nextSlotToSend, audioEncodedUntil: nil) }
            return
        }
        let encodedUntil = fifoStart - origin.rescaled(to: audioTimeBase).value
        nextBoundary = boundaries.earliestCut(nextSlot: nextSlotToSend, audioEncodedUntil: encodedUntil)
    }

    private func write(_ packet: Packet, stream: Int, to segment: MovieSegment) throws {
        packet.streamIndex = stream
        let start = CPUClock.threadNanoseconds()
        makeRoom(for: packet.size, in: segment)
        let outcome = try segment.writer.submit(packet)
        muxNanoseconds += CPUClock.threadNanoseconds() - start
        guard case .limitReached(let reason) = outcome else { return }
        if reason == .maxFileSizeReached && segment.sizeLimitIsSegments {
            // The segment's own size (the pictures in flight were larger than foreseen): it ends here and the
            // next file begins at the next picture that can; what the full one refused is lost.
            if nextBoundary == nil { planSizeCut() }
            return
        }
        stopReason = reason
    }

    private func finalize() -> RecordingResult {
        if !segments.isEmpty {
            do {
                if MovieVerdict.flushesEncoders(after: stopReason) { try flushEncoders() }
            } catch {
                if stopReason != .failed { errorMessage = "\(error)" }
                if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace { stopReason = .diskFull }
                else if stopReason != .diskFull { stopReason = .failed }
            }
            releaseHeldPicture()
            let ending = stopReason ?? .stopped
            while !segments.isEmpty { finishSegment(segments.removeFirst(), stopReason: ending) }
            if setup.discardsStoppedMovie && ending == .stopped {
                // An interrupted batch transcode keeps none of its segments: a re-run does the whole job again.
                for index in finishedSegments.indices where finishedSegments[index].usable && !finishedSegments[index].result.deleted {
                    unlink(finishedSegments[index].result.output)
                    finishedSegments[index].result.deleted = true
                    finishedSegments[index].usable = false
                }
                if naming != nil { FileSystem.syncFolder(containing: setup.outputPath) }
            }
            if let last = finishedSegments.last {
                stopReason = last.stopReason
                errorMessage = last.errorMessage
            }
        }
        let stages = stageTimes()
        let files = finishedSegments
        let recorded = files.contains(where: \.usable) && stopReason != .failed
        if !recorded && stopReason != .failed && errorMessage == nil {
            errorMessage = "nothing was captured before the recording stopped"
        }
        // What the files hold: nothing for a file that was not kept (a failure keeps complete fragments).
        let fileVideoFrames = files.reduce(0) { $0 + $1.result.videoFrames }
        let segmented = naming != nil
        return RecordingResult(
            output: setup.outputPath, stopReason: stopReason ?? .stopped, recordedSuccessfully: recorded,
            duration: files.reduce(0) { $0 + $1.result.duration },
            bytes: files.reduce(0) { $0 + $1.result.bytes }, videoFrames: fileVideoFrames,
            droppedFrames: droppedFrames, audioSamples: files.reduce(0) { $0 + $1.result.audioSamples },
            preset: setup.preset.name, elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
            videoDevice: setup.videoDevice, audioDevice: setup.audioDevice, error: errorMessage, still: nil,
            stages: stages, fragments: files.reduce(0) { $0 + $1.fragments },
            finalizationBytes: recorded ? files.last?.finalizationBytes : nil,
            // Repeats counted as they were encoded; a limit cut can leave some out of the file.
            duplicatedFrames: recorded ? min(duplicatedFrames, max(0, fileVideoFrames - 1)) : nil,
            segments: segmented ? files.map(\.result) : nil)
    }

    /// At the end: the held picture is shown and the video encoder drained into the files; the audio still
    /// queued (and what swresample holds) is encoded, a boundary the video did not reach is dropped, and
    /// each file's AAC encoder is drained.
    private func flushEncoders() throws {
        // At a stop the devices stop at one instant, but the last picture lasts a frame interval past its
        // capture while the last audio block ended before it was delivered: the tracks would end up to a frame
        // and a block apart. So the audio is padded with silence or cut to the video's end (it was encoded no
        // further than the pictures, see audioWaitPoint; if it was, the last picture lasts until it ends):
        // both tracks end together, as they began. (Not at an input's end: a file's tracks keep their lengths.)
        let alignsEnds = stopReason == .stopped && setup.hasVideo && setup.hasAudio && origin != nil && audioFIFOStart != nil
        if let encoder = videoEncoder {
            try showHeldPicture(atLeastUntil: alignsEnds ? encodedAudioEndSlot() : 0)
            try send(nil, to: encoder, stream: videoStream)
            for segment in segments where !segment.videoEnded {
                segment.videoEnded = true
                _ = try segment.writer.endStream(videoStream)
            }
        }
        if setup.hasAudio {
            nextBoundary = nil
            // The cap comes first: what swresample still holds must not be encoded past the video's end.
            if alignsEnds { capAudioAtTheVideoEnd() }
            if audioResampler != nil, audioFIFOStart != nil, let tail = try resampled(nil) {
                // What swresample still holds follows what is queued.
                try queueAudio(tail, start: audioFIFOStart! + Int64(audioFIFO?.count ?? 0), tolerance: 0)
            }
            if let cap = audioEndCap, let end = queuedAudioEnd, end < cap { try appendSilence(cap - end) }
            if origin != nil { try encodeQueuedAudio(final: true) }
            for segment in segments { try endAudio(of: segment) }
        }
    }

    /// How far a stop lines the tracks' ends up: a gap longer than this is not the last frame and block
    /// (a device that stalled before the stop) and is left as it is.
    static let endAlignmentLimit: Double = 0.5

    /// Where the audio queued so far ends, in samples from the movie's origin.
    private var queuedAudioEnd: Int64? {
        guard let origin, let fifoStart = audioFIFOStart, let fifo = audioFIFO else { return nil }
        return fifoStart - origin.rescaled(to: audioTimeBase).value + Int64(fifo.count)
    }

    /// While the video runs, audio is encoded no further than the pictures sent so far (it arrives ahead of
    /// them), so that a stop can cut the queued rest at the video's end; audio further ahead than the
    /// alignment limit (a stalled camera) is encoded anyway, which keeps the queue bounded. Nil: no wait.
    private func audioWaitPoint(originSample: Int64) -> Int64? {
        guard setup.hasVideo, !videoDone, let fifo = audioFIFO, let start = audioFIFOStart else { return nil }
        let sent = Timestamp(value: nextSlotToSend, timeBase: videoTimeBase).rescaled(to: audioTimeBase).value
        let queuedEnd = start - originSample + Int64(fifo.count)
        return max(sent, queuedEnd - Int64(MovieRecorder.endAlignmentLimit * Double(setup.preset.audio.sampleRate)))
    }

    /// The slot at which the audio encoded so far ends (rounded up), or 0 when that is beyond the alignment
    /// limit past the video's end. (It passes the pictures sent only when they lag by more than the limit.)
    private func encodedAudioEndSlot() -> Int64 {
        guard let origin, let fifoStart = audioFIFOStart else { return 0 }
        let end = fifoStart - origin.rescaled(to: audioTimeBase).value
        var slot = Timestamp(value: end, timeBase: audioTimeBase).rescaled(to: videoTimeBase).value
        if Timestamp(value: slot, timeBase: videoTimeBase).rescaled(to: audioTimeBase).value < end { slot += 1 }
        let limit = Int64((MovieRecorder.endAlignmentLimit * setup.preset.videoFrameRate.doubleValue).rounded(.up))
        return slot <= cadence.nextSlot + limit ? slot : 0
    }

    /// Ends the audio at the video's end, when the two are within the alignment limit: what passes it is
    /// not encoded, and flushEncoders pads a shortfall with silence.
    private func capAudioAtTheVideoEnd() {
        guard let audioEnd = queuedAudioEnd else { return }
        let videoEnd = Timestamp(value: nextSlotToSend, timeBase: videoTimeBase).rescaled(to: audioTimeBase).value
        let limit = Int64(MovieRecorder.endAlignmentLimit * Double(setup.preset.audio.sampleRate))
        if abs(videoEnd - audioEnd) <= limit { audioEndCap = videoEnd }
    }

    /// This output's share of the CPU time, called on its thread once the file is finished. The session
    /// adds the readers' stages and the process total (see SessionEngine).
    private func stageTimes() -> StageTimes {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let ownThread = CPUClock.threadNanoseconds() - threadStart
        let audioThread = audioEncodeNanoseconds
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
        let report = RecordingProgress(
            elapsed: Double(now - startedAt) / 1e9, mediaDuration: media, bytes: bytesSoFar,
            videoFrames: videoFrames, droppedFrames: droppedFrames, framesPerSecond: fps, inputDuration: setup.inputDuration,
            segment: naming == nil ? nil : segments.last?.index)
        latestProgress.withLock { $0 = report }
        progress(report)
    }

    /// Bytes of the finished files and of the open ones as if finished now.
    private var bytesSoFar: Int64 {
        finishedSegments.reduce(0) { $0 + $1.result.bytes } + segments.reduce(0) { $0 + $1.writer.projectedFileSize }
    }
}
