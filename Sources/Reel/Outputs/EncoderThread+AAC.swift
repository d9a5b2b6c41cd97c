import FFmpegCore

extension EncoderThread {
    /// An AAC encoder of `preset`'s sound on its own thread, with its pool of planar float frames (one
    /// encoder frame each): the movie's per-track encoders and the live streams' continuous one.
    static func aac(_ preset: Preset, name: String) throws -> EncoderThread {
        let audio = preset.audio
        let encoder = try Encoder(audio: preset.audioEncoderSettings(), globalHeader: MovieWriter.needsGlobalHeader)
        let frames = try (0..<audioFramePool).map { _ in
            let frame = Frame()
            try frame.allocateAudio(sampleCount: encoder.frameSize, format: .floatPlanar, channels: audio.channels,
                                    sampleRate: audio.sampleRate)
            return frame
        }
        return EncoderThread(encoder: encoder, frames: frames, name: name)
    }
}
