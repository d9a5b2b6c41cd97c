import FFmpegCore

/// Encoder settings derived from a preset.
extension Preset {
    var videoFrameRate: Rational { Rational(approximating: video.fps, maxTerm: 1001 * 240) }

    /// `colour`: what the pictures are and the stream is tagged with (a ColourPlan's output).
    func videoEncoderSettings(colour: ColourDescription) -> VideoEncoderSettings {
        var settings = VideoEncoderSettings(width: video.width, height: video.height, frameRate: videoFrameRate,
                                            keyframeInterval: video.keyframeInterval)
        settings.codecName = video.codec.encoderName
        settings.colour = colour
        settings.maxRate = video.maxRate
        settings.bufferSize = video.bufferSize
        settings.privateOptions = [PrivateOption("preset", video.speedPreset), PrivateOption("profile", video.profile)]
        if video.latency == .low { settings.privateOptions.insert(PrivateOption("tune", "zerolatency"), at: 1) }
        switch video.rateControl {
        case .constantQuality(let crf): settings.privateOptions.append(PrivateOption("crf", String(crf)))
        case .averageBitRate(let rate): settings.bitRate = rate
        }
        // A steady GOP keeps keyframes where the preset says (no extra ones at scene cuts).
        var parameters = ["scenecut=0"]
        if let bFrames = video.bFrames { parameters.append("bframes=\(bFrames)") }
        switch video.codec {
        case .h264:
            settings.privateOptions.append(PrivateOption("x264-params", parameters.joined(separator: ":")))
        case .hevc:
            // Every keyframe an IDR that later pictures cannot reach past (x265's default open GOP makes CRA
            // keyframes with leading pictures that refer to the GOP before), so a fragment that starts with one
            // decodes on its own; and every keyframe the engine forces (a fragment cut) an IDR (without
            // forced-idr, x265 makes one that comes soon after the last keyframe, within its min-keyint, an
            // ordinary picture, and the cut waits for the next keyframe). x265 logs to stderr itself: only as
            // much as FFmpeg's log is set to show.
            parameters += ["open-gop=0", "log-level=\(Preset.x265LogLevel(following: FFmpegLibrary.logLevel))"]
            settings.privateOptions.append(PrivateOption("forced-idr", "1"))
            settings.privateOptions.append(PrivateOption("x265-params", parameters.joined(separator: ":")))
        }
        return settings
    }

    /// A movie's video encoder at this preset (with the global header a QuickTime file needs).
    func openVideoEncoder(colour: ColourDescription) throws -> Encoder {
        try Encoder(video: videoEncoderSettings(colour: colour), globalHeader: MovieWriter.needsGlobalHeader)
    }

    /// x265's name for the log level FFmpeg's log is at (quiet by default: the library never prints).
    static func x265LogLevel(following level: FFmpegLibrary.LogLevel) -> String {
        switch level {
        case .quiet: return "none"
        case .error: return "error"
        case .warning: return "warning"
        case .info, .verbose: return "info"
        case .debug: return "debug"
        }
    }

    func audioEncoderSettings() -> AudioEncoderSettings {
        AudioEncoderSettings(sampleRate: audio.sampleRate, channels: audio.channels, bitRate: audio.bitRate)
    }
}
