import FFmpegCore

/// Encoder settings derived from a preset.
extension Preset {
    var videoFrameRate: Rational { Rational(approximating: video.fps, maxTerm: 1001 * 240) }

    /// `colour`: what the pictures are and the stream is tagged with (a ColourPlan's output).
    func videoEncoderSettings(colour: ColourDescription) -> VideoEncoderSettings {
        var settings = VideoEncoderSettings(width: video.width, height: video.height, frameRate: videoFrameRate,
                                            keyframeInterval: video.keyframeInterval)
        settings.colour = colour
        settings.maxRate = video.maxRate
        settings.bufferSize = video.bufferSize
        settings.privateOptions = [PrivateOption("preset", video.x264Preset), PrivateOption("profile", video.profile)]
        switch video.rateControl {
        case .constantQuality(let crf): settings.privateOptions.append(PrivateOption("crf", String(crf)))
        case .averageBitRate(let rate): settings.bitRate = rate
        }
        var x264Parameters = ["scenecut=0"]  // a steady GOP keeps keyframes where the preset says
        if let bFrames = video.bFrames { x264Parameters.append("bframes=\(bFrames)") }
        settings.privateOptions.append(PrivateOption("x264-params", x264Parameters.joined(separator: ":")))
        return settings
    }

    func audioEncoderSettings() -> AudioEncoderSettings {
        AudioEncoderSettings(sampleRate: audio.sampleRate, channels: audio.channels, bitRate: audio.bitRate)
    }
}
