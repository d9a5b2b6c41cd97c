import FFmpegCore

extension MovieRecorder {
    /// What a movie is asked to record: where, at which preset, under which limits, from which tracks.
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
        /// Added to a session that was already running (CaptureSession.addOutput): it starts with the next
        /// picture (or sound) it is handed, not with the session's first picture.
        var joinsRunningSession = false
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
        /// The names of its sound tracks when the session records several inputs as tracks of their own (one
        /// per input, all in the capture's blocks); empty: one track.
        var audioTrackNames: [String] = []
        /// The video encoder of its preset this movie takes its pictures from, and its subscriber id there
        /// (SharedVideoEncoders.subscribe).
        var sharedVideo: (encoder: SharedVideoEncoder, id: Int)? = nil
        /// The AAC encoder this movie shares with the session's own movies whose sound runs alike.
        var sharedAudio: SharedAudioEncoder.Role? = nil
        /// Live streams of this movie's packets (`--live`): they get a reference to each packet it writes.
        var live: [LiveOutput] = []
        /// False for the encoders of live streams alone (LiveStreamOutput): no file, the packets go to the
        /// streams only, the sound through LiveAudio.
        var writesFile = true
        /// Sound tracks in the file: one per name, or one (a movie without a file feeds live streams, which
        /// take the first track).
        var audioTrackCount: Int { writesFile ? max(1, audioTrackNames.count) : 1 }
        /// The live streams' segment duration: a keyframe is forced at each multiple of it (0: none).
        var liveSegmentDuration: Double { live.map(\.keyframeGrid).filter { $0 > 0 }.min() ?? 0 }
    }
}

extension MovieRecorder {
    /// Opens the movie's encoders (or waits for the shared ones it takes packets from), its sound queue and
    /// its first file, on its thread.
    func openOutput() throws {
        if setup.hasVideo {
            if let (encoder, _) = setup.sharedVideo {
                videoEncoder = try encoder.log.waitForEncoder()
                adoptSharedOrigin()
            } else {
                videoEncoder = try setup.preset.openVideoEncoder(colour: setup.videoColour)
            }
            videoStream = 0
        }
        if setup.hasAudio {
            audioStream = setup.hasVideo ? 1 : 0
            let queuedChannels = setup.preset.audio.channels * setup.audioTrackCount
            audioFIFO = SampleFIFO(format: .floatPlanar, channels: queuedChannels)
            if setup.captureAudio != (setup.preset.audio.sampleRate, setup.preset.audio.channels) {
                conversion = AudioConversion(tracks: setup.audioTrackCount, sampleRate: setup.preset.audio.sampleRate,
                                             channels: setup.preset.audio.channels)
            }
        }
        if setup.writesFile {
            try openAudioEncoders()
            try openSegment(at: SegmentBoundaries.Boundary(slot: 0, sample: 0))
            // A follower's frames are as long as the owner's encoder's.
            if followsSharedAudio { audioFrameSize = segments.current?.audioStreamEncoder?.frameSize ?? 0 }
        } else {
            video.startSegment()
        }
        try openLiveStreams()
    }
}
