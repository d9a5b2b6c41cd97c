import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// The end of a movie: the encoders drained, the tracks' ends lined up at a stop, the files finalized and
/// the result.
extension MovieRecorder {
    func finalize() -> RecordingResult {
        if !segments.open.isEmpty {
            do {
                // Ended at a boundary for the total size: the pictures up to it were planned into the file.
                if MovieVerdict.flushesEncoders(after: stopReason) || (totalSizeEnd != nil && stopReason == .maxFileSizeReached
                                                                       && segments.open.allSatisfy { $0.writer.stopReason == nil }) {
                    try flushEncoders()
                }
            } catch {
                if stopReason != .failed { errorMessage = "\(error)" }
                if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace { stopReason = .diskFull }
                else if stopReason != .diskFull { stopReason = .failed }
            }
            finishAudioEncoders(flush: false)
            finishLiveAudio()
            releaseHeldPicture()
            let ending = stopReason ?? .stopped
            for segment in segments.takeAll() { finishSegment(segment, stopReason: ending) }
            if setup.discardsStoppedMovie && ending == .stopped {
                // An interrupted batch transcode keeps none of its segments: a re-run does the whole job again.
                for index in finishedSegments.indices where finishedSegments[index].usable && !finishedSegments[index].result.deleted {
                    unlink(finishedSegments[index].result.output)
                    finishedSegments[index].result.deleted = true
                    finishedSegments[index].usable = false
                }
                if naming != nil { FileSystem.syncFolder(containing: setup.outputPath) }
            }
            if finishedSegments.count > 1, let last = finishedSegments.last, !last.usable, last.result.bytes == 0,
               [StopReason.maxFileSizeReached, .diskSpaceLimitReached].contains(last.stopReason) {
                // A limit of the whole recording that left the last file nothing (it is not on disk): the
                // recording ended at the limit, in the files before it.
                finishedSegments.removeLast()
                stopReason = last.stopReason
                errorMessage = nil
            } else if let last = finishedSegments.last {
                stopReason = last.stopReason
                errorMessage = last.errorMessage
            }
        }
        finishAudioEncoders(flush: false)  // (opened, but the first file could not be)
        let stages = stageTimes()
        let files = finishedSegments
        let recorded = files.contains(where: \.usable) && stopReason != .failed
        if !recorded && stopReason != .failed && errorMessage == nil {
            errorMessage = "nothing was captured before the recording stopped"
        }
        // What the files hold: nothing for a file that was not kept (a failure keeps complete fragments).
        let fileVideoFrames = files.reduce(0) { $0 + $1.result.videoFrames }
        let segmented = naming != nil
        return RecordingResult(
            output: setup.outputPath, stopReason: stopReason ?? .stopped, recordedSuccessfully: recorded,
            duration: files.reduce(0) { $0 + $1.result.duration },
            bytes: files.reduce(0) { $0 + $1.result.bytes }, videoFrames: fileVideoFrames,
            droppedFrames: droppedFrames, audioSamples: files.reduce(0) { $0 + $1.result.audioSamples },
            preset: setup.preset.name, elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
            videoDevice: setup.videoDevice, audioDevice: setup.audioDevice, error: errorMessage, still: nil,
            stages: stages, fragments: files.reduce(0) { $0 + $1.fragments },
            finalizationBytes: recorded ? files.last?.finalizationBytes : nil,
            // Repeats counted as they were encoded; a limit cut can leave some out of the file.
            duplicatedFrames: recorded ? min(video.repeats, max(0, fileVideoFrames - 1)) : nil,
            segments: segmented ? files.map(\.result) : nil)
    }

    /// At the end: the held picture is shown and the video encoder drained into the files; the audio still
    /// queued (and what swresample holds) is encoded, a boundary the video did not reach is dropped, and
    /// each file's AAC encoder is drained.
    func flushEncoders() throws {
        // At a stop the devices stop at one instant, but the last picture lasts a frame interval past its
        // capture while the last audio block ended before it was delivered: the tracks would end up to a frame
        // and a block apart. So the audio is padded with silence or cut to the video's end (it was encoded no
        // further than the pictures, see audioWaitPoint; if it was, the last picture lasts until it ends):
        // both tracks end together, as they began. (Not at an input's end: a file's tracks keep their lengths.)
        let alignsEnds = stopReason == .stopped && setup.hasVideo && setup.hasAudio && origin != nil && audio.queueStart != nil
        if let encoder = videoEncoder {
            if subscription != nil {
                try takeSharedPictures(final: true)  // its encoder's pictures up to its end
                // The readers stopped at the duration limit before the movie had its encoder's last pictures
                // (an encoder that lags): it ended at its limit, as a movie that encodes its own would say.
                if stopReason == .inputEnded, let limit = videoSlotLimit, video.nextSlotToSend >= limit,
                   audioDone || !setup.hasAudio {
                    stopReason = .maxDurationReached
                }
            } else {
                try showHeldPicture(atLeastUntil: alignsEnds ? encodedAudioEndSlot() : 0)
                try send(nil, to: encoder, stream: videoStream)
            }
            for segment in segments.open where !segment.videoEnded {
                segment.videoEnded = true
                _ = try segment.writer.endStream(videoStream)
            }
        }
        if setup.hasAudio {
            nextBoundary = nil
            // The cap comes first: what swresample still holds must not be encoded past the video's end.
            if alignsEnds { capAudioAtTheVideoEnd() }
            if let conversion, let queueStart = audio.queueStart, let tail = try conversion.convert(nil) {
                // What swresample still holds follows what is queued.
                try queueAudio(tail, start: queueStart + Int64(audioFIFO?.count ?? 0), tolerance: 0)
            }
            if let cap = audio.endCap, let end = queuedAudioEnd, end < cap { try appendSilence(cap - end) }
            if origin != nil { try encodeQueuedAudio(final: true) }
            try endAllAudio()
        }
    }

    /// The session sample of the movie's time zero (the origin is known once its first item came).
    var originSample: Int64? { origin?.rescaled(to: audioTimeBase).value }

    /// The first slot after every picture sent, in samples from the origin.
    var videoSentSamples: Int64 {
        Timestamp(value: video.nextSlotToSend, timeBase: videoTimeBase).rescaled(to: audioTimeBase).value
    }

    /// Where the audio queued so far ends, in samples from the movie's origin.
    var queuedAudioEnd: Int64? {
        guard let originSample, let fifo = audioFIFO else { return nil }
        return audio.queuedEnd(originSample: originSample, queued: fifo.count)
    }

    /// How far the audio may be encoded while the video runs (AudioTrack.waitPoint). Nil: no wait. A movie
    /// without a file whose streams all end their sound at their pictures themselves (replay buffers) does
    /// not wait: holding its sound back to the pictures sent would make a save wait for the encoder's delay
    /// twice, once for the pictures and once more for the sound behind them.
    func audioWaitPoint(originSample: Int64) -> Int64? {
        guard setup.hasVideo, !videoDone, let fifo = audioFIFO else { return nil }
        if !setup.writesFile && !liveOutputs.isEmpty && liveOutputs.allSatisfy(\.endsItsSoundAtItsPictures) { return nil }
        return audio.waitPoint(originSample: originSample, queued: fifo.count, videoSent: videoSentSamples)
    }

    /// The slot at which the audio encoded so far ends (rounded up), or 0 when that is beyond the alignment
    /// limit past the video's end. (It passes the pictures sent only when they lag by more than the limit.)
    func encodedAudioEndSlot() -> Int64 {
        guard let originSample, let end = audio.encodedEnd(originSample: originSample) else { return 0 }
        var slot = Timestamp(value: end, timeBase: audioTimeBase).rescaled(to: videoTimeBase).value
        if Timestamp(value: slot, timeBase: videoTimeBase).rescaled(to: audioTimeBase).value < end { slot += 1 }
        let limit = Int64((AudioTrack.endAlignmentLimit * setup.preset.videoFrameRate.doubleValue).rounded(.up))
        return slot <= video.cadence.nextSlot + limit ? slot : 0
    }

    /// Ends the audio at the video's end when the two are within the alignment limit (AudioTrack.capAtVideoEnd).
    func capAudioAtTheVideoEnd() {
        guard let originSample, let fifo = audioFIFO else { return }
        audio.capAtVideoEnd(videoSentSamples, originSample: originSample, queued: fifo.count)
    }

    /// This output's share of the CPU time, called on its thread once the file is finished. The session
    /// adds the readers' stages and the process total (see SessionEngine).
    func stageTimes() -> StageTimes {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let ownThread = CPUClock.threadNanoseconds() - threadStart
        let audioThread = audioEncodeNanoseconds
        ownThreadNanoseconds = ownThread + audioThread
        let encode = encodeNanoseconds[.video] ?? 0
        var times = StageTimes()
        // A subscriber's pictures were encoded on its encoder's thread (the same time in each of its movies).
        times.encodeVideo = seconds(subscription?.encoder.ownThreadNanoseconds ?? encode)
        times.encodeAudio = seconds(audioThread)
        times.mux = seconds(muxNanoseconds)
        times.engineOther = seconds(max(0, ownThread - encode - muxNanoseconds))
        return times
    }

    /// Pictures this movie lacks because they were dropped: by the readers (the pools were full) or by this
    /// output, or the shared encoder it takes pictures from (it fell behind a live source).
    var droppedFrames: Int { readerDrops() + queue.droppedCount + (subscription?.droppedPictures ?? 0) }

    func reportProgress() {
        let now = MonotonicClock.nanoseconds()
        guard now - lastProgress.time >= 500_000_000 else { return }
        let interval = Double(now - lastProgress.time) / 1e9
        let fps = lastProgress.time == 0 ? 0 : Double(video.framesSent - lastProgress.frames) / interval
        lastProgress = (now, video.framesSent)
        // (A subscriber's pictures are its encoder's: the slots it took, not a cadence of its own.)
        let media = max(Double(max(video.cadence.nextSlot, video.nextSlotToSend)) * videoTimeBase.doubleValue,
                        Double(audio.samplesEncoded) / Double(setup.preset.audio.sampleRate))
        let report = RecordingProgress(
            elapsed: Double(now - startedAt) / 1e9, mediaDuration: media, bytes: bytesSoFar,
            videoFrames: video.framesSent, droppedFrames: droppedFrames, framesPerSecond: fps, inputDuration: setup.inputDuration,
            segment: naming == nil ? nil : segments.current?.index)
        published.withLock { $0.progress = report }
        progress(report)
    }

    /// Bytes of the finished files and of the open ones as if finished now.
    var bytesSoFar: Int64 {
        finishedSegments.reduce(0) { $0 + $1.result.bytes } + segments.open.reduce(0) { $0 + $1.writer.projectedFileSize }
    }
}
