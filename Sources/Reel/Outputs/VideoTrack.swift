import FFmpegCore

/// A movie's picture track as decisions, without FFmpeg: which output slots each captured picture is shown
/// in (VideoCadence), where the duration limit ends the track (`slotLimit`), which slots must be keyframes (a segment's
/// first picture, each fragment's, the first after a resume), and what has been sent to the encoder and come
/// back from it. The movie (MovieRecorder) holds the pictures and the encoder and asks this value what to do;
/// unit-tested in VideoTrackTests.
struct VideoTrack {
    let frameRate: Rational
    /// Seconds between fragments (each starts with a keyframe); 0 forces none.
    let fragmentInterval: Double
    private(set) var cadence = VideoCadence()
    private var keyframes: KeyframeSchedule
    /// A live stream's segments start on the movie's own timeline, segments or not (0: no live stream).
    private var liveSegments: KeyframeSchedule
    /// The first picture after a resume, or after a live stream joined (`requestKeyframe`), starts a new
    /// group of pictures.
    private var keyframeAtResume = false
    /// Frames sent to the encoder (repeats included), and how many of them were repeats of a picture.
    private(set) var framesSent = 0
    private(set) var repeats = 0
    /// Packets the encoder gave back: the difference from `framesSent` is in flight.
    private(set) var packetsOut = 0
    /// The slot after the last one sent.
    private(set) var nextSlotToSend: Int64 = 0

    init(frameRate: Rational, fragmentInterval: Double, liveSegmentDuration: Double = 0) {
        self.frameRate = frameRate
        self.fragmentInterval = fragmentInterval
        self.keyframes = KeyframeSchedule(interval: fragmentInterval)
        self.liveSegments = KeyframeSchedule(interval: liveSegmentDuration)
    }

    var timeBase: Rational { frameRate.inverted }

    /// A picture `time` after the movie's origin arrives: the slots the previously held one is shown in.
    mutating func arrive(after time: Timestamp) -> Range<Int64> {
        cadence.arrive(time: VideoCadence.frames(of: time, rate: frameRate))
    }

    /// At the end (or a stop): the slots the held picture is shown in, at least up to `minimumEnd`.
    mutating func finish(atLeast minimumEnd: Int64) -> Range<Int64> { cadence.finish(atLeast: minimumEnd) }

    /// A pause began: the held picture was shown up to it and is let go; the first picture after the resume
    /// starts a new group of pictures.
    mutating func pause() { cadence.letGoOfHeldPicture() }
    mutating func resume() { keyframeAtResume = true }
    /// A live stream joined the running movie: its first picture is the next one sent, a keyframe (one extra
    /// keyframe for the movie, instead of the stream waiting up to a GOP).
    mutating func requestKeyframe() { keyframeAtResume = true }
    /// An HLS stream joined a movie that had none: from now on a keyframe at each multiple of its segment
    /// duration on the movie's timeline (the grid its segments are cut on).
    mutating func startLiveSegments(every seconds: Double) {
        if liveSegments.interval == 0 { liveSegments = KeyframeSchedule(interval: seconds) }
    }
    /// The live segments' duration (0: none).
    var liveSegmentDuration: Double { liveSegments.interval }

    /// A new file begins (a segment): its fragments count from its first picture.
    mutating func startSegment() { keyframes = KeyframeSchedule(interval: fragmentInterval) }

    /// The frame for `slot` is sent (slots in increasing order; `isRepeat` when it shows the same picture as
    /// the slot before). Returns whether it must be a keyframe: the first of the movie and of each segment
    /// (`segmentStart`), the first of each fragment and of each live segment, the first after a resume.
    mutating func send(slot: Int64, segmentStart: Int64, isRepeat: Bool) -> Bool {
        let startsSegment = slot == segmentStart && framesSent > 0
        let fragment = keyframes.forcesKeyframe(at: Double(slot - segmentStart) * timeBase.doubleValue,
                                                isFirst: framesSent == 0 || startsSegment)
        let live = liveSegments.forcesKeyframe(at: Double(slot) * timeBase.doubleValue, isFirst: framesSent == 0)
        let keyframe = fragment || live || startsSegment || (keyframeAtResume && framesSent > 0)
        keyframeAtResume = false
        nextSlotToSend = slot + 1
        framesSent += 1
        if isRepeat { repeats += 1 }
        return keyframe
    }

    /// A packet came back from the encoder.
    mutating func packetReceived() { packetsOut += 1 }

    /// A movie that takes a shared encoder's pictures sends none itself: the picture for `slot` came
    /// (`isRepeat`: the same picture as the slot before's).
    mutating func taken(slot: Int64, isRepeat: Bool) {
        framesSent += 1
        if isRepeat { repeats += 1 }
        nextSlotToSend = max(nextSlotToSend, slot + 1)
    }

    /// Frames sent whose packets have not come back yet (the encoder's delay).
    var framesInFlight: Int { max(0, framesSent - packetsOut) }

    /// The first slot not kept under a duration limit of `seconds`: every kept frame ends by the limit, so no
    /// track runs past it (5 s at 30 fps: 150 frames; 1.01 s: 30 frames, 1.0 s). A limit shorter than one
    /// frame still keeps the first picture: a movie needs one.
    func slotLimit(seconds: Double) -> Int64 {
        max(1, Int64((seconds * frameRate.doubleValue + 1e-9).rounded(.down)))
    }
}
