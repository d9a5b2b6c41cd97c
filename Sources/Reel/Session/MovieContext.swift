import FFmpegCore
import FoundationEssentials
import Glibc

/// What every movie of one session shares (its inputs, their tracks, the capture's audio format, the
/// rotation), so a movie is described the same way whether it starts with the session (the main movie, a
/// tier) or is added while the session runs.
struct MovieContext: Sendable {
    let configuration: RecordingConfiguration
    /// The video input's name (for messages) and stream, which each movie's ColourPlan is made for.
    let videoSource: (name: String, stream: SourceStream)?
    let renditions: PictureRenditions
    let rotation: DisplayTurn
    let hasVideo: Bool
    let hasAudio: Bool
    /// The sample rate and channels audio is captured in (the main movie's preset).
    let captureAudio: (sampleRate: Int, channels: Int)
    /// The names of the sound tracks when several inputs are recorded as tracks of their own; empty: one track.
    let audioTrackNames: [String]
    /// Files and lavfi with realtime=0: movies started with the session keep the input's timeline.
    let unpaced: Bool
    let inputDuration: Double?
    /// The session clock's zero (monotonic nanoseconds).
    let sessionStart: Int64
    /// The encoders the session's MovieOutputs share.
    let sharedEncoders = SharedVideoEncoders()

    /// The rendition pictures at the preset's size are taken from (added if none of its size came before), and
    /// the colour they are tagged with; (0, unspecified) without video.
    func rendition(for preset: Preset) throws -> (index: Int, colour: ColourDescription) {
        guard let videoSource else { return (0, .unspecified) }
        let (width, height) = (preset.video.width, preset.video.height)
        // An HDR input this FFmpeg cannot tone-map is refused here, before anything is written.
        let plan = try ColourPlan(for: videoSource.stream, outputWidth: width, outputHeight: height, sourceName: videoSource.name)
        return (renditions.index(width: width, height: height, colour: plan), plan.output)
    }

    /// The setup of encoders for live streams alone (LiveStreamOutput): no file, no limits; its time zero
    /// is the first picture it gets.
    func liveStreams(preset: Preset, live: [LiveOutput]) throws -> MovieRecorder.Setup {
        guard !hasVideo || preset.video.codec.isAvailable else {
            throw ReelError.invalidInput("this FFmpeg has no \(preset.video.codec.encoderName) encoder for preset \(preset.name): use an h264 preset")
        }
        let (rendition, colour) = try self.rendition(for: preset)
        var setup = MovieRecorder.Setup(
            temporaryPath: "", fragmentInterval: 0, fragmentMemoryLimit: configuration.fragmentMemoryLimit, outputPath: "",
            folder: ".", preset: preset, limits: RecordingLimits(minFreeDiskSpace: 0), rotation: rotation, hasVideo: hasVideo,
            rendition: rendition, videoColour: colour, hasAudio: hasAudio, captureAudio: captureAudio, timelineFromInputStart: false,
            videoDevice: hasVideo ? configuration.video?.description : nil,
            audioDevice: hasAudio ? configuration.audio?.description : nil, inputDuration: nil, sessionStart: sessionStart)
        setup.live = live
        setup.writesFile = false
        return setup
    }

    /// A movie's setup: its rendition (added if no movie of its size came before) and colour, its limits
    /// checked against its folder. `joinsRunningSession`: the movie's time zero is the first picture it
    /// gets, not the input's start.
    func movie(path: String, preset: Preset, limits: RecordingLimits, segmentation: Segmentation? = nil,
               joinsRunningSession: Bool = false) throws -> MovieRecorder.Setup {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard !hasVideo || preset.video.codec.isAvailable else {
            throw ReelError.invalidInput("this FFmpeg has no \(preset.video.codec.encoderName) encoder for preset \(preset.name): use an h264 preset")
        }
        try limits.validate(freeBytes: DiskSpace.availableBytes(atFolder: folder), outputFolder: folder,
                            pictureSize: hasVideo ? (preset.video.width, preset.video.height) : nil)
        let (rendition, colour) = try self.rendition(for: preset)
        if let segmentation {
            try segmentation.validate(pictureSize: hasVideo ? (preset.video.width, preset.video.height) : nil)
        }
        var writing = configuration
        writing.outputPath = path
        var setup = MovieRecorder.Setup(
            temporaryPath: writing.writingPath, fragmentInterval: configuration.fragmentInterval,
            fragmentMemoryLimit: configuration.fragmentMemoryLimit, outputPath: path, folder: folder, preset: preset,
            limits: limits, rotation: rotation, hasVideo: hasVideo, rendition: rendition, videoColour: colour,
            hasAudio: hasAudio, captureAudio: captureAudio, timelineFromInputStart: unpaced && !joinsRunningSession,
            videoDevice: hasVideo ? configuration.video?.description : nil,
            audioDevice: hasAudio ? configuration.audio?.description : nil, inputDuration: inputDuration,
            segmentation: segmentation, overwrite: configuration.overwrite, sessionStart: sessionStart,
            discardsStoppedMovie: configuration.discardsStoppedMovie, audioTrackNames: audioTrackNames)
        setup.joinsRunningSession = joinsRunningSession
        return setup
    }
}
