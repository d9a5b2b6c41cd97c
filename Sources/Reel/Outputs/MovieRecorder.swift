import FFmpegCore
import FoundationEssentials
import Glibc
import Synchronization
import SystemSupport

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
    let setup: Setup
    /// Where the session puts this movie's items.
    let queue: OutputQueue
    let buffer: CaptureBuffer
    /// Pictures the session's readers dropped (shared by every output), for the result and progress.
    let readerDrops: @Sendable () -> Int
    let progress: @Sendable (RecordingProgress) -> Void
    /// Segment and live-stream events (segmentStarted, segmentFinished from this movie's thread; liveStopped
    /// from a live stream's).
    let segmentEvents: @Sendable (RecordingEvent) -> Void
    let startedAt: Int64
    /// Set once the movie wants nothing more (a limit, a failure, the end): the session stops handing it items.
    let doneFlag = Atomic<Bool>(false)
    /// What other threads read of the movie (its progress, its result and who waits for it), under one lock.
    let published = Locked(Published())
    var thread: WorkerThread?

    // Encoding state, owned by the recorder's thread.
    var videoEncoder: Encoder?
    /// The files being written (one for an unsegmented movie) and which of them each packet goes to.
    var segments = SegmentRouter<MovieSegment>()
    /// Every file finished so far, in order (segment results with what finalizing them gave).
    var finishedSegments: [MovieSegment.Outcome] = []
    let boundaries: SegmentBoundaries
    let naming: SegmentNaming?
    /// The next segment boundary, planned but not yet reached by the video (audio waits there for it).
    var nextBoundary: SegmentBoundaries.Boundary?
    var sizeCut: SegmentSizeCut?
    /// The size of the last keyframe out of the encoder (a new file's first picture is one).
    var lastKeyframeBytes = 0
    var retention: SegmentRetention
    var audioEncodeNanoseconds: Int64 = 0
    /// The AAC encoders on their threads, one per sound track (the first track's first), for all the files.
    var audioEncoders: [EncoderThread] = []
    var audioEncodersRunning = false
    var audioFrameSize = 0
    /// Where an AAC packet is referenced for each file it goes to.
    let routedAudioPacket = Packet()
    let packet = Packet()
    /// The owner of a shared AAC encoder: packets its followers are done with, to reference the next ones in
    /// (no allocation per packet once warm).
    var spareSharedPackets: [Packet] = []
    /// A follower: the owner's AAC packets handed to it (one list, reused), each referenced before written.
    var sharedAudioHandout: [Packet] = []
    let sharedAudioPacket = Packet()
    /// The movie's place on the encoder of its preset (its pictures are that encoder's), and packets to
    /// take the encoder's references in (no allocation per packet once warm).
    let subscription: EncoderSubscription?
    var sharedPool: [Packet] = []
    /// The latest of its encoder's slots a packet came for.
    var sharedHighestSlot: Int64 = -1
    /// The sound queued for the AAC encoders: every track's channels side by side (track i in channels
    /// i×C ..< (i+1)×C), so placement, silence, limits and segment walls treat the tracks as one.
    var audioFIFO: SampleFIFO?
    /// Converts the session's audio when this movie's preset asks for another rate or channel count.
    var conversion: AudioConversion?
    var videoStream = -1
    var audioStream = -1
    /// The session time of the movie's time zero, once known (the first picture, or the input's start).
    var origin: Timestamp? = nil
    /// The picture track's slots and keyframes, and the sound track's queue and limits.
    var video: VideoTrack
    var audio: AudioTrack
    /// The latest picture, shown once the next one says for how long (see VideoCadence).
    var heldPicture: CapturedItem? = nil
    /// The live streams were told the wall-clock time of the movie's zero.
    var liveStreamsDated = false
    /// The live streams fed now: the setup's, then those that joined while the movie records (its thread only).
    var liveOutputs: [LiveOutput] = []
    /// Streams that joined while the movie records: the slot of the keyframe the movie made for them (their
    /// first picture: one already inside the encoder at the join is not theirs) and whether it came.
    var liveJoinSlots: [ObjectIdentifier: (slot: Int64, started: Bool)] = [:]
    /// The frame slot of the newest picture given to the movie (held until the next says for how long): what
    /// a replay saved now must reach. -1 before the first.
    let newestPicture = Atomic<Int64>(-1)
    /// Live streams added from other threads, taken in before the next captured item.
    let liveJoins = LiveJoins()
    /// The live streams' own sound encode, when the movie has none to hand them (see LiveAudio).
    var liveAudio: LiveAudio?
    /// The frame samples go through on their way to LiveAudio.
    var liveOnlyAudioFrame: Frame?
    /// Why the streams' own sound encode stopped, if it did (their results say so).
    var liveAudioFailure: String?
    /// The picture as this movie's encoder gets it: a reference to the shared pixels (no copy) with this
    /// movie's own timestamp and keyframe flag (the shared frame is read-only: other outputs read it).
    let videoInput = Frame()
    /// Where the recording ends because its total size leaves no room for another file (the boundary that
    /// file would have begun at): pictures and audio stop there, as at a duration limit.
    var totalSizeEnd: SegmentBoundaries.Boundary? = nil
    var videoDone = false { didSet { if videoDone { videoWanted.store(false, ordering: .releasing) } } }
    var audioDone = false { didSet { if audioDone { audioWanted.store(false, ordering: .releasing) } } }
    let videoWanted = Atomic<Bool>(true)
    /// Pauses as asked from any thread, on the session's clock; the recorder's thread applies them to the items
    /// by their times (`pauseCursor`: the first pause not yet over).
    let pauses: PauseRequests
    var pauseCursor = 0
    /// Session time at which the pause took effect, while paused.
    var pausedAt: Timestamp? = nil
    let audioWanted = Atomic<Bool>(true)
    var stopReason: StopReason? = nil
    var errorMessage: String? = nil
    var lastProgress: (time: Int64, frames: Int) = (0, 0)
    // CPU accounting (nanoseconds of this thread's CPU clock).
    var encodeNanoseconds: [MediaType: Int64] = [.video: 0, .audio: 0]
    var muxNanoseconds: Int64 = 0
    var threadStart: Int64 = 0
    /// CPU time of this output's own threads (its thread and its AAC thread), once finished.
    var ownThreadNanoseconds: Int64 = 0

    /// Tests only (internal, not reachable from the command line or the public API): the movie written to a
    /// path fails as an encoder would once it has encoded this many pictures.
    static let injectedFailures = Locked<[String: Int]>([:])
    /// This movie's injected failure, read once when it starts (no lock per picture).
    lazy var injectedFailure: Int? = MovieRecorder.injectedFailures.withLock { $0[setup.outputPath] }
    /// Throws the injected failure once the movie has taken that many pictures (encoded or from its encoder).
    func failIfInjected() throws {
        if let failAt = injectedFailure, video.framesSent >= failAt {
            throw FFmpegError(call: "avcodec_send_frame", message: "an encoder failure injected by a test")
        }
    }

    /// Pictures a live output may have waiting before it drops new ones: 0.2 s at 30 fps (with the picture
    /// it holds and the one being encoded, the CaptureBuffer's 7 + 1 paced slots for one movie).
    static let livePictureQueue = 6

    init(setup: Setup, buffer: CaptureBuffer, paced: Bool, readerDrops: @escaping @Sendable () -> Int,
         progress: @escaping @Sendable (RecordingProgress) -> Void,
         segmentEvents: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) {
        self.setup = setup
        self.buffer = buffer
        self.segmentEvents = segmentEvents
        self.boundaries = SegmentBoundaries(setup)
        self.naming = setup.segmentation.map { _ in SegmentNaming(template: setup.outputPath) }
        self.sizeCut = setup.segmentation?.size.map { SegmentSizeCut(size: $0) }
        self.retention = SegmentRetention(keep: setup.segmentation?.keep)
        let queue = OutputQueue(pictureLimit: paced ? MovieRecorder.livePictureQueue : nil)
        self.queue = queue
        let subscription = MovieRecorder.subscription(setup, queue: queue)
        self.subscription = subscription
        // The session's own movies whose sound runs alike pause together, at one keyframe (SharedAudioEncoder).
        if let group = setup.sharedAudio?.group, let subscription { group.register(subscription) }
        self.pauses = setup.sharedAudio?.group.pauses ?? MovieRecorder.pauses(setup, subscription: subscription)
        self.readerDrops = readerDrops
        self.progress = progress
        self.startedAt = MonotonicClock.nanoseconds()
        self.video = VideoTrack(frameRate: setup.preset.videoFrameRate, fragmentInterval: setup.fragmentInterval,
                                liveSegmentDuration: setup.liveSegmentDuration)
        self.audio = AudioTrack(sampleRate: setup.preset.audio.sampleRate)
        if setup.timelineFromInputStart { origin = .zero(in: sessionTimeBase) }
        // A subscriber's pictures come from its encoder, not from the session.
        if subscription != nil { videoWanted.store(false, ordering: .releasing) }
    }

    var videoTimeBase: Rational { video.timeBase }
    var audioTimeBase: Rational { Rational(1, Int32(setup.preset.audio.sampleRate)) }

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

    func run() {
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
            let entry = queue.take()
            if case .end(let reason, let message) = entry {
                if !finished {
                    stopReason = reason
                    errorMessage = message
                    finish()
                }
                break loop
            }
            if finished {
                if case .item(let type, let item) = entry { buffer.release(type, item.slot) }
                continue
            }
            if liveJoins.hasPending { joinLiveStreams() }
            do {
                switch entry {
                case .item(let type, let item):
                    if subscription != nil { adoptSharedOrigin() }
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
                case .encoded: try takeSharedPictures(final: false)
                case .end: break
                }
            } catch {
                stopReason = .failed
                errorMessage = "\(error)"
            }
            if stopReason == nil, (setup.limits.maxDuration ?? 0) > 0 || totalSizeEnd != nil,
               (videoDone || !setup.hasVideo), (audioDone || !setup.hasAudio) {
                stopReason = totalSizeEnd != nil ? .maxFileSizeReached : .maxDurationReached
            }
            if stopReason != nil {
                finish()
                finished = true
            } else {
                reportProgress()
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
    /// then the movie is finalized with `stopped` (a subscriber's pictures end at the keyframe its encoder
    /// makes at this instant).
    func requestStop() {
        subscription?.stop()
        queue.end(.stopped, message: nil)
    }

    /// Finalizes the movie and publishes the result; the session stops handing it items.
    func finish() {
        doneFlag.store(true, ordering: .releasing)
        var result = setup.writesFile ? finalize() : finalizeWithoutFile()
        let live = finishLiveStreams()
        if !live.isEmpty { result.live = live }
        // Followers of this movie's sound get no more packets from it; a follower takes no more.
        switch setup.sharedAudio {
        case .owner(let shared)?: shared.ownerFinished(reason: stopReason)
        case .follower(let shared, let index)?: shared.leave(follower: index)
        case nil: break
        }
        subscription?.leave()
        // The encoder (x264's threads and its pictures) is let go now, not when the session is: a finished
        // movie holds nothing, and a process that exits once the result is out does not exit with it open.
        videoEncoder = nil
        publish(result)
    }
}
