import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// Checks a RecordingConfiguration and opens its inputs, so that every problem a user can fix is reported
/// (as `ReelError.invalidInput`) before a byte is written. What it opens is handed to the reader threads;
/// the movies it describes (the main one, the tiers, then the MovieOutputs added before the start) become
/// the session's outputs.
struct RecordingPreparation {
    let session: SessionEngine.Setup
    /// The main movie first, then each tier, then each MovieOutput added before the start.
    let movies: [MovieRecorder.Setup]
    /// The session's own movies (the main one and its tiers) come first in `movies`; the MovieOutputs follow.
    let ownMovieCount: Int
    /// Every file the movies will write (to check a movie added while the session runs against).
    let plan: OutputPlan
    let buffer: CaptureBuffer
    let readers: [InputReader]
    let renditions: PictureRenditions
    let photos: PhotoRequests
    /// What the movies share, to add one while the session runs.
    let context: MovieContext
    /// Live inputs: an output that falls behind drops its own pictures.
    let paced: Bool
    /// The composed picture of several video inputs (or of one placed by a layout), whose layout can change.
    let composition: ComposedVideoSource?

    /// Pool sizes: enough to ride out encoder hiccups, small enough to keep memory flat. A live (paced) source
    /// cannot wait, so it gets room for 0.2 s of pictures at 30 fps (6); an unpaced one (a file, lavfi with
    /// realtime=0) waits for a free frame, and three keep reader and encoder busy at once (at 1080p each
    /// picture is 3 MB). Each gets one more, for the latest picture the engine holds (see VideoCadence).
    /// Sound: a live source gets 64 blocks (1.4 s of 1024 samples at 48 kHz) to ride out a stall of the
    /// session; unpaced sound is handed out in time order with the pictures, so blocks further ahead than a
    /// few pictures only wait in the pool (16: 0.34 s, well past the 4 pictures' 0.13 s).
    static let pacedVideoPoolFrames = 7
    static let unpacedVideoPoolFrames = 4
    static let pacedAudioPoolBlocks = 64
    static let unpacedAudioPoolBlocks = 16

    /// `interrupt`, raised by the session's stop, ends a wait for an input to open (a named pipe without a
    /// writer, a slow device) and then every reader.
    /// `movieOutputs`: movies added to the session before it started; they start with it, as tiers do, each
    /// with its own preset, limits and segments.
    init(_ configuration: RecordingConfiguration, movieOutputs: [MovieOutput] = [], interrupt: InterruptFlag = InterruptFlag()) throws {
        var controlsToRestore: (path: String, values: [CameraControlSetting.PreviousValue])? = nil
        var prepared = false
        // A start that fails after the camera's controls were set gives them back at once.
        defer { if !prepared, let restore = controlsToRestore { CameraControlSetting.restore(restore.values, to: restore.path) } }
        guard configuration.video != nil || configuration.audio != nil else {
            throw ReelError.invalidInput("nothing to record: give a video or an audio source")
        }
        let output = URL(fileURLWithPath: configuration.outputPath)
        let outputPaths = configuration.hasOwnMovie ? [configuration.outputPath] + configuration.tiers.map(\.outputPath) : []
        let unsegmented = (configuration.segmentation == nil ? outputPaths : []) + movieOutputs.filter { $0.segmentation == nil }.map(\.outputPath)
        if let fields = unsegmented.first(where: SegmentNaming.hasFields) {
            throw ReelError.invalidInput("\(ErrorText.path(fields)) holds {index}, {date} or {time}, which only segmented recordings fill in: add --segment-duration or --segment-size, or rename the output")
        }
        let stills = [configuration.firstFrameStill].compactMap { $0 } + configuration.hiddenFirstFrameStills
        if !stills.isEmpty && configuration.video == nil {
            throw ReelError.invalidInput("a first-frame still needs a video source")
        }
        for still in stills { try still.validate() }
        // Every file the recording will write (segments, tiers, stills, hidden names), checked at once.
        var plan = OutputPlan(configuration)
        for movie in movieOutputs {
            plan.addMovie(URL(fileURLWithPath: movie.outputPath).path, segmentation: movie.segmentation,
                          writesHidden: configuration.writingPath != configuration.outputPath, role: "movie output")
        }
        try plan.check(overwrite: configuration.overwrite)
        if !configuration.live.isEmpty || !configuration.livePushes.isEmpty {
            guard configuration.hasOwnMovie else {
                throw ReelError.invalidInput("a live stream comes from the session's movie: this session records none")
            }
            try LivePush.check(configuration.livePushes, videoCodec: configuration.preset.video.codec)
            let variants = configuration.tiers.isEmpty ? [] : LiveVariants.folderNames(presets: [configuration.preset.name] + configuration.tiers.map(\.preset.name))
            try LiveFolder.check(configuration.live, variants: variants, plan: plan, overwrite: configuration.overwrite)
        }
        self.plan = plan
        let interval = configuration.fragmentInterval
        guard interval == 0 || RecordingConfiguration.fragmentIntervalRange.contains(interval) else {
            throw ReelError.invalidInput("fragment interval \(interval) s: use 0 (off) or at least \(RecordingConfiguration.shortestFragmentInterval) s")
        }
        guard RecordingConfiguration.deviceTimeoutRange.contains(configuration.deviceTimeout) else {
            throw ReelError.invalidInput("device timeout \(configuration.deviceTimeout) s: use \(NumberText.plain(RecordingConfiguration.deviceTimeoutRange.lowerBound)) to \(NumberText.plain(RecordingConfiguration.deviceTimeoutRange.upperBound)) seconds")
        }
        let composes = !configuration.additionalVideo.isEmpty || configuration.layout != nil
        let videoInputs = [configuration.video].compactMap { $0 } + configuration.additionalVideo
        if composes {
            guard configuration.video != nil else {
                throw ReelError.invalidInput("a layout or more video inputs need a first video input")
            }
            guard videoInputs.count <= VideoLayout.maximumInputs else {
                throw ReelError.invalidInput("\(videoInputs.count) video inputs: a session composes at most \(VideoLayout.maximumInputs)")
            }
            if videoInputs.contains(where: { $0.kind == .file }) && configuration.takesTracksFromInput {
                throw ReelError.invalidInput("a transcode takes one input: compose files with reel record --video FILE --video FILE")
            }
        }
        let layout = try composes ? configuration.layout ?? VideoLayout.builtIn(VideoLayout.defaultName, inputs: videoInputs.count) : nil
        try layout?.check(inputs: videoInputs.count)
        let audioInputs = [configuration.audio].compactMap { $0 } + configuration.additionalAudio
        if !configuration.additionalAudio.isEmpty {
            guard configuration.audio != nil else { throw ReelError.invalidInput("more sound inputs need a first one") }
            guard audioInputs.count <= AudioMixer.maximumInputs else {
                throw ReelError.invalidInput("\(audioInputs.count) sound inputs: a session takes at most \(AudioMixer.maximumInputs)")
            }
            if configuration.takesTracksFromInput { throw ReelError.invalidInput("a transcode takes one input: mix files with reel record --audio FILE --audio FILE") }
        }
        let sources = videoInputs + audioInputs
        let allPaced = sources.allSatisfy(\.isPaced)
        let nonePaced = sources.allSatisfy { !$0.isPaced }
        guard allPaced || nonePaced else {
            throw ReelError.invalidInput(
                "cannot mix a live source with an unpaced one (\(sources.map(\.description).joined(separator: " and "))): use realtime=0 on both lavfi sources, or neither")
        }
        let preset = composes ? configuration.preset : RecordingPreparation.presetForCamera(configuration.preset, video: configuration.video)
        if !configuration.cameraControls.isEmpty {
            guard let video = configuration.video, video.kind == .v4l2 else {
                throw ReelError.invalidInput("camera controls need a V4L2 camera as the video source (v4l2:/dev/videoN)")
            }
            let previous = try CameraControlSetting.apply(configuration.cameraControls, to: video.target, spec: video)
            if configuration.restoresCameraControls { controlsToRestore = (video.target, previous) }
        }
        // Open every input first (each once): a transcode learns from its file which tracks there are.
        var opened: [(spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag)] = []
        func open(_ spec: DeviceSpec, _ roles: [InputRecipe.Role], missingRolesAllowed: Bool = false) throws {
            let flag = InterruptFlag(following: interrupt)
            do {
                let source = try InputRecipe.make(for: spec, role: roles[0], preset: preset)
                    .openSource(spec: spec, roles: roles, interrupt: flag, missingRolesAllowed: missingRolesAllowed)
                opened.append((spec, source, flag))
            } catch where interrupt.isRaised {
                throw ReelError.runtime("stopped while opening \(spec), before anything was recorded")
            }
        }
        let pictureFilters = preset.video.filters + configuration.pictureFilters
        let overlays = preset.video.overlays + configuration.overlays
        try PictureEffects.checkAvailable(filters: pictureFilters, overlays: overlays)
        var composition: ComposedVideoSource? = nil
        if let layout, let video = configuration.video {
            // Each video input read by a layer of the composition, which is the session's one video input.
            let flag = InterruptFlag(following: interrupt)
            var layers: [(spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag)] = []
            for spec in videoInputs {
                let layerFlag = InterruptFlag(following: flag)
                do {
                    layers.append((spec, try InputRecipe.make(for: spec, role: .video, preset: preset)
                        .openSource(spec: spec, roles: [.video], interrupt: layerFlag), layerFlag))
                } catch where interrupt.isRaised {
                    throw ReelError.runtime("stopped while opening \(spec), before anything was recorded")
                }
            }
            let composed = try ComposedVideoSource(inputs: layers, layout: layout, width: preset.video.width, height: preset.video.height,
                                                   frameRate: preset.video.fps, deviceTimeout: configuration.deviceTimeout,
                                                   filters: PictureFilterKind.chain(pictureFilters), interrupt: flag)
            opened.append((video, composed, flag))
            composition = composed
            for audio in audioInputs { try open(audio, [.audio]) }
        } else if let video = configuration.video, let audio = configuration.audio, video == audio, video.kind == .file,
                  configuration.additionalAudio.isEmpty {
            // One file for both tracks (a transcode): one reader demuxes it once and routes both streams.
            try open(video, [.video, .audio], missingRolesAllowed: configuration.takesTracksFromInput)
        } else {
            if let video = configuration.video { try open(video, [.video]) }
            for audio in audioInputs { try open(audio, [.audio]) }
        }
        // Open: from here a stop is the engine's to carry out (it waits for the first picture).
        for input in opened { input.interrupt.stopFollowing() }
        let videoStream = opened.lazy.compactMap { $0.source.stream(of: .video) }.first
        let hasVideo = videoStream != nil, hasAudio = opened.contains { $0.source.stream(of: .audio) != nil }
        if !stills.isEmpty && !hasVideo {
            throw ReelError.invalidInput("a first-frame still needs a video source, and \(configuration.audio?.description ?? "the input") has none")
        }
        // Every movie: the main one at the (camera-adapted) preset, then the tiers at theirs.
        let ownMovies: [(path: String, preset: Preset, limits: RecordingLimits, segmentation: Segmentation?)] = !configuration.hasOwnMovie ? [] :
            [(output.path, preset, configuration.limits, configuration.segmentation)] + configuration.tiers.map { tier in
                var limits = configuration.limits
                if let own = tier.maxFileSize { limits.maxFileSize = own }
                return (URL(fileURLWithPath: tier.outputPath).path, tier.preset, limits, configuration.segmentation)
            }
        let moviePlans = ownMovies + movieOutputs.map { movie in
            (URL(fileURLWithPath: movie.outputPath).path, movie.preset, movie.limits, movie.segmentation)
        }
        // One rendition per picture size: movies of the same size share their scaled pictures. The main
        // movie's is rendition 0 (stills and photos are taken from it).
        let renditions = PictureRenditions()
        let videoSource = opened.lazy.compactMap { input in input.source.stream(of: .video).map { (input.spec.name, $0) } }.first
        // A transcode keeps the file's rotation (a phone's portrait movie stays portrait).
        let rotation = configuration.takesTracksFromInput ? (videoStream?.rotation ?? 0)
                                                          : DisplayTurn(clockwiseDegrees: configuration.orientation.clockwiseRotation)
        let sessionStart = MonotonicClock.nanoseconds()
        // Several sound inputs as tracks of their own: one frame per input in each block, a track per input.
        let separateTracks = configuration.audioTracks == .separate && audioInputs.count > 1
        let context = MovieContext(
            configuration: configuration, videoSource: videoSource, renditions: renditions, rotation: rotation,
            hasVideo: hasVideo, hasAudio: hasAudio, captureAudio: (preset.audio.sampleRate, preset.audio.channels),
            audioTrackNames: separateTracks ? audioInputs.map(\.trackName) : [],
            unpaced: nonePaced, inputDuration: configuration.takesTracksFromInput ? opened.first?.source.durationSeconds : nil,
            sessionStart: sessionStart)
        // Without a movie of its own the session still captures pictures at the preset's size (rendition 0),
        // for photos, previews and the movies added to it.
        if !configuration.hasOwnMovie { _ = try context.rendition(for: preset) }
        var setups = try moviePlans.map { plan in
            try context.movie(path: plan.path, preset: plan.preset, limits: plan.limits, segmentation: plan.segmentation)
        }
        // The session's own movies that record alike (a tier of the main movie's preset) encode their sound once
        // (their pictures come from one encoder of their preset, as every movie's on the session's timeline).
        SharedAudioEncoder.assignRoles(&setups, count: ownMovies.count)
        if !configuration.live.isEmpty {
            let perMovie = LiveVariants.outputs(for: configuration.live, presets: setups[..<ownMovies.count].map(\.preset))
            for (index, outputs) in perMovie.enumerated() { setups[index].live = outputs }
        }
        // Pushes carry the main movie (a server takes one rendition; tiers are for HLS's players).
        if !configuration.livePushes.isEmpty { setups[0].live += configuration.livePushes.map { LiveOutput(push: $0) } }
        // So does the replay buffer; without a movie it gets encoders of its own once the session runs.
        if let replay = configuration.replayBuffer {
            try replay.validate()
            if configuration.hasOwnMovie { setups[0].live.append(LiveOutput(replay: replay)) }
        }
        movies = setups
        ownMovieCount = ownMovies.count
        self.context = context

        let mediaTypes: [MediaType] = (hasVideo ? [.video] : []) + (hasAudio ? [.audio] : [])
        // Each further movie may hold pictures of its own (queued, held, being encoded); a photo holds one.
        let extraMovies = max(0, moviePlans.count - 1)
        let videoSlots = allPaced ? RecordingPreparation.pacedVideoPoolFrames + 1 + extraMovies * (MovieRecorder.livePictureQueue + 2)
                                  : RecordingPreparation.unpacedVideoPoolFrames + extraMovies * 2
        let buffer = CaptureBuffer(videoFrames: videoSlots,
                                   audioFrames: allPaced ? RecordingPreparation.pacedAudioPoolBlocks : RecordingPreparation.unpacedAudioPoolBlocks,
                                   streams: mediaTypes,
                                   audioTracks: separateTracks ? audioInputs.count : 1)
        // Audio is captured in the main movie's format; a tier in another resamples it.
        var factory = ReaderFactory(preset: preset, renditions: renditions, buffer: buffer, sessionStart: sessionStart,
                                    pausedTime: PausedTime(live: allPaced), hasVideo: hasVideo, metersLevels: configuration.needsLevels)
        factory.pictureFilters = composition == nil ? pictureFilters : []
        factory.overlays = overlays
        if !overlays.isEmpty, let capture = renditions.all.first {
            try PictureEffects.check(overlays, width: capture.width, height: capture.height, colour: capture.colour.output)
        }
        // Several sound inputs: each reader's blocks go to its lane of one mix (or of the tracks side by side),
        // which feeds the audio stream.
        let mixer = audioInputs.count < 2 ? nil : AudioMixer(
            gains: audioInputs.map { $0.gainDecibels ?? 0 }, sampleRate: preset.audio.sampleRate, channels: preset.audio.channels,
            blockSize: 1024, paced: allPaced, metersLevels: configuration.needsLevels && audioInputs.allSatisfy { $0.kind != .file },
            separate: separateTracks, buffer: buffer)
        var lanes = 0
        let readers = try opened.map { input -> InputReader in
            var lane: AudioMixer.Lane? = nil
            if let mixer, input.source.stream(of: .audio) != nil {
                lane = mixer.lane(lanes)
                lanes += 1
            }
            return try factory.makeReader(input.spec, source: input.source, interrupt: input.interrupt,
                                          maxDuration: configuration.recordsMovie ? configuration.limits.maxDuration : nil, mixLane: lane)
        }
        session = SessionEngine.Setup(
            deviceTimeout: configuration.deviceTimeout,
            // Separate unpaced inputs are taken in strict time order; a single reader feeding both tracks is
            // taken as it comes (its file is already interleaved, and waiting on one of its streams while it
            // is blocked on the other would deadlock).
            order: nonePaced && readers.count > 1 ? .byTime : .asQueued, hasVideo: hasVideo, stills: stills, stillRotation: rotation,
            controlsToRestore: controlsToRestore, readerFactory: factory, runsWithoutMovie: !configuration.hasOwnMovie)
        photos = PhotoRequests(rendition: 0, rotation: rotation)
        paced = allPaced
        self.composition = composition
        // The last step before the start: a live stream's folder is made (or an earlier stream's files go).
        // A recording with tiers streams each movie into a folder of the stream's own.
        for stream in configuration.live + movies.flatMap({ $0.live.compactMap(\.hlsStream) }) { try LiveFolder.prepare(stream) }
        if let triggers = configuration.triggers {
            try triggers.validate()
            if triggers.watchesPictures && !hasVideo {
                throw ReelError.invalidInput("--trigger motion needs a video source, and \(configuration.audio?.description ?? "the input") has none")
            }
            if triggers.watchesSound && !hasAudio {
                throw ReelError.invalidInput("--trigger sound needs a sound source, and \(configuration.video?.description ?? "the input") has none")
            }
        }
        // The last check: a replay buffer is filled by one recording at a time (released at its end).
        if let replay = configuration.replayBuffer, !replay.claim() {
            throw ReelError.invalidInput("the replay buffer is being filled by another recording: give this one its own")
        }
        prepared = true
        self.buffer = buffer
        self.readers = readers
        self.renditions = renditions
    }

    /// A `deviceBest` preset (`high`, AVCaptureSessionPresetHigh) records at the size of the camera mode it
    /// chooses, the largest up to the preset's that keeps its rate, rather than scaling it up to the preset's.
    static func presetForCamera(_ preset: Preset, video: DeviceSpec?) -> Preset {
        guard preset.video.sizePolicy == .deviceBest, let video, video.kind == .v4l2,
              let size = InputRecipe.make(for: video, role: .video, preset: preset).options
                  .first(where: { $0.key == "video_size" }).flatMap({ Preset.parseSize($0.value) }),
              size.width <= preset.video.width, size.height <= preset.video.height else { return preset }
        var adapted = preset
        (adapted.video.width, adapted.video.height) = size
        return adapted
    }

    /// The session and its movies, ready to run: the movies are added, their threads not yet started.
    func makeSession(mainProgress: @escaping @Sendable (RecordingProgress) -> Void,
                     segmentEvents: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) -> (SessionEngine, [MovieRecorder]) {
        let engine = SessionEngine(setup: session, buffer: buffer, readers: readers, photos: photos)
        let silent: @Sendable (RecordingProgress) -> Void = { _ in }
        // The movies on the session's timeline take their pictures from the encoder of their preset
        // (SharedVideoEncoders.subscribes; context.sharedEncoders, whose encoders the session adds before the movies).
        var movies = self.movies
        for index in movies.indices where SharedVideoEncoders.subscribes(movies[index]) {
            _ = context.sharedEncoders.subscribe(&movies[index], buffer: buffer, paced: paced)
        }
        let recorders = movies.enumerated().map { index, movie -> MovieRecorder in
            MovieRecorder(setup: movie, buffer: buffer, paced: paced, readerDrops: engine.readerDropCount,
                          progress: index == 0 ? mainProgress : silent, segmentEvents: segmentEvents)
        }
        return (engine, recorders)
    }

}
