import FFmpegCore

/// A movie as one of the session's outputs: items go into its queue (its thread encodes them), holding their
/// pool slots until encoded; the queue drops the oldest when the encoder falls behind a live source.
extension MovieRecorder: SessionOutput {
    var role: SessionOutputRole { .finite }

    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) throws {
        buffer.hold(item)
        var dropped: CapturedItem? = nil
        if !queue.offer(type, item, dropped: &dropped) { buffer.release(type, item.slot) }
        if let dropped { buffer.release(type, dropped.slot) }
    }

    func end(_ ending: SessionEngine.Ending) { queue.end(ending.reason, message: ending.message) }

    func waitForResult() -> RecordingResult? { waitForMovieResult() }

    var finishedResult: RecordingResult? { result }
}
