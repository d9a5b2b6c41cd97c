import FFmpegCore

/// A movie as one of the session's outputs: items go into its queue (its thread encodes them), holding their
/// pool slots until encoded; the queue drops the oldest when the encoder falls behind a live source.
extension MovieRecorder: SessionOutput {
    /// A movie ends the session once it (and every other movie) stopped by itself; live streams without a
    /// movie go on as long as the session does.
    var role: SessionOutputRole { setup.writesFile ? .finite : .companion }

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws {
        // A subscriber's pictures start at its first sound, the first it is handed (EncoderSubscription).
        if type == .audio, let subscription { subscription.join(atItemTime: item.time.rescaled(to: sessionTimeBase).value) }
        buffer.hold(item)
        var dropped: CapturedItem? = nil
        if !queue.offer(type, item, dropped: &dropped) { buffer.release(type, item.slot) }
        if let dropped { buffer.release(type, dropped.slot) }
    }

    func end(_ ending: SessionEngine.Ending) { queue.end(ending.reason, message: ending.message) }

    /// A movie's result; live streams without a movie have none among the session's (LiveStreamOutput has theirs).
    func waitForResult() -> RecordingResult? {
        let result = waitForMovieResult()
        return setup.writesFile ? result : nil
    }

    var finishedResult: RecordingResult? { setup.writesFile ? result : nil }
}
