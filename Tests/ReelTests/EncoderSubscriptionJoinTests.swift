import FFmpegCore
@testable import Reel
import Testing

/// Where a MovieOutput's pictures start on the timeline of the encoder it shares (EncoderSubscription.Join),
/// as its setup decides: added before the start, on the session's first picture however late its sound
/// begins (the session's own movies start there); added while the session runs, with its first sound. No
/// encoder runs here: the encoder's timeline is its first picture's time and its frame rate.
@Suite struct EncoderSubscriptionJoinTests {
    static func subscribed(joinsRunningSession: Bool) throws -> (SharedVideoEncoder, EncoderSubscription) {
        var setup = MovieRecorder.Setup(
            temporaryPath: "a.mov", fragmentInterval: 0, fragmentMemoryLimit: 1 << 20, outputPath: "a.mov", folder: ".",
            preset: try PresetLibrary.preset(named: "352x288"), limits: RecordingLimits(), rotation: 0, hasVideo: true, rendition: 0,
            videoColour: .unspecified, hasAudio: true, captureAudio: (48_000, 2), timelineFromInputStart: false,
            videoDevice: nil, audioDevice: nil, inputDuration: nil)
        setup.joinsRunningSession = joinsRunningSession
        // As the session subscribes a movie: a new encoder for the first of its preset.
        let buffer = CaptureBuffer(videoFrames: 8, audioFrames: 8, streams: [.video, .audio])
        let encoder = try #require(SharedVideoEncoders().subscribe(&setup, buffer: buffer, paced: true))
        let subscription = try #require(MovieRecorder.subscription(setup, queue: OutputQueue(pictureLimit: 4)))
        return (encoder, subscription)
    }

    /// The session's first picture at 1 s; the first sound 0.1 s after it (three pictures at 30 a second),
    /// as on a busy machine where the sound's reader starts late.
    static let firstPicture: Int64 = 1_000_000, firstSound: Int64 = 1_100_000

    @Test func aMovieAddedBeforeTheStartBeginsOnTheSessionsFirstPicture() throws {
        let (encoder, subscription) = try Self.subscribed(joinsRunningSession: false)
        #expect(subscription.hasJoined && subscription.current.start == 0, "joined before any picture, at the first")
        encoder.log.setOrigin(Timestamp(value: Self.firstPicture, timeBase: sessionTimeBase))
        subscription.join(atItemTime: Self.firstSound)
        #expect(subscription.current.start == 0, "its sound is preceded by silence; its pictures start with the session's")
    }

    @Test func aMovieAddedWhileTheSessionRunsBeginsWithItsFirstSound() throws {
        let (encoder, subscription) = try Self.subscribed(joinsRunningSession: true)
        #expect(!subscription.hasJoined)
        encoder.log.setOrigin(Timestamp(value: Self.firstPicture, timeBase: sessionTimeBase))
        subscription.join(atItemTime: Self.firstSound)
        #expect(subscription.current.start == 3, "the first picture slot from its first sound")
        subscription.join(atItemTime: Self.firstSound + 1_000_000)
        #expect(subscription.current.start == 3, "once")
    }
}
