import FFmpegCore
import SystemSupport

/// The encoders of live streams alone (LiveStreamOutput): the movie's loop, cadence, keyframes and sound
/// placement, with the packets going to the streams only. The sound is encoded by LiveAudio (the streams'
/// encoder), fed here in AAC frames as a file's encoder would be.
extension MovieRecorder {
    /// Hands the queued samples to the streams' encoder, whole frames up to where the pictures are (and with
    /// `final`, the rest), no further than the duration limit.
    func encodeAudioWithoutFile(final: Bool, originSample: Int64) throws {
        guard let fifo = audioFIFO, let liveAudio, var fifoStart = audio.queueStart else { return }
        defer { audio.queueStart = fifoStart }
        let frameSize = liveAudio.encoder.frameSize
        let frame = try liveSamplesFrame(frameSize: frameSize)
        let durationLimit = setup.limits.maxDuration.map { Int64(($0 * Double(setup.preset.audio.sampleRate)).rounded()) }
        let limit = [durationLimit, audio.endCap].compactMap { $0 }.min()
        let waitPoint = final ? nil : audioWaitPoint(originSample: originSample)
        frames: while !audioDone {
            let position = fifoStart - originSample
            switch AudioTrack.nextFrame(position: position, frameSize: frameSize, queued: fifo.count, limit: limit,
                                        wall: nil, waitPoint: waitPoint, final: final) {
            case .limitReached:
                audioDone = true
                break frames
            case .wait:
                break frames
            case .encode(let count):
                _ = try fifo.read(into: frame, sampleCount: count)
                frame.pts = position
                sendLive(samples: frame, at: position)
                fifoStart += Int64(count)
                audio.samplesEncoded += Int64(count)
                if let limit, position + Int64(count) >= limit { audioDone = true }
                if count < frameSize { break frames }
            }
        }
    }

    /// The frame the streams' own encoder (LiveAudio) is handed samples in, made on first use.
    func liveSamplesFrame(frameSize: Int) throws -> Frame {
        if let frame = liveOnlyAudioFrame { return frame }
        let frame = Frame()
        try frame.allocateAudio(sampleCount: frameSize, format: .floatPlanar, channels: setup.preset.audio.channels,
                                sampleRate: setup.preset.audio.sampleRate)
        liveOnlyAudioFrame = frame
        return frame
    }

    /// The end without a file: the encoders drained into the streams; the result says how much was encoded
    /// (the streams' own results are added by `finish`).
    func finalizeWithoutFile() -> RecordingResult {
        do {
            if MovieVerdict.flushesEncoders(after: stopReason) { try flushEncoders() }
        } catch {
            if stopReason != .failed { errorMessage = "\(error)" }
            stopReason = .failed
        }
        finishLiveAudio()
        releaseHeldPicture()
        let media = max(Double(video.cadence.nextSlot) * videoTimeBase.doubleValue,
                        Double(audio.samplesEncoded) / Double(setup.preset.audio.sampleRate))
        return RecordingResult(
            output: "", stopReason: stopReason ?? .stopped, recordedSuccessfully: stopReason != .failed, duration: media,
            bytes: 0, videoFrames: video.framesSent, droppedFrames: droppedFrames, audioSamples: audio.samplesEncoded,
            preset: setup.preset.name, elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
            videoDevice: setup.videoDevice, audioDevice: setup.audioDevice, error: errorMessage, still: nil,
            stages: stageTimes(), fragments: 0, finalizationBytes: nil, duplicatedFrames: nil, segments: nil)
    }
}
