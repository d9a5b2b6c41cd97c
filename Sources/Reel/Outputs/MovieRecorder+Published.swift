import SystemSupport

extension MovieRecorder {
    /// What other threads read of the movie, under its one lock.
    struct Published {
        enum Phase {
            /// Who waits for the result (called once it is there, on the movie's thread).
            case recording(waiters: [@Sendable (RecordingResult) -> Void])
            case finished(RecordingResult)
        }
        var phase = Phase.recording(waiters: [])
        /// The last progress report (twice a second while recording), for whoever asks.
        var progress: RecordingProgress?

        var result: RecordingResult? {
            if case .finished(let result) = phase { result } else { nil }
        }
    }

    /// Waits for the movie to be finalized and returns its result.
    func waitForMovieResult() -> RecordingResult {
        thread?.join()
        return published.withLock { $0.result! }
    }

    /// The result once finalized, else nil.
    var result: RecordingResult? { published.withLock { $0.result } }

    /// The last progress report, else nil.
    var latestProgress: RecordingProgress? { published.withLock { $0.progress } }

    /// Calls `body` with the result once the movie is finalized: at once if it is, else on the movie's thread
    /// (no thread per waiter; keep `body` short).
    func whenFinished(_ body: @escaping @Sendable (RecordingResult) -> Void) {
        let ready: RecordingResult? = published.withLock { state in
            switch state.phase {
            case .recording(let waiters):
                state.phase = .recording(waiters: waiters + [body])
                return nil
            case .finished(let result):
                return result
            }
        }
        if let ready { body(ready) }
    }

    /// The movie is finalized: its result is there for every reader, and each waiter is called with it.
    func publish(_ result: RecordingResult) {
        let waiters = published.withLock { state -> [@Sendable (RecordingResult) -> Void] in
            defer { state.phase = .finished(result) }
            if case .recording(let waiters) = state.phase { return waiters }
            return []
        }
        for waiter in waiters { waiter(result) }
    }
}
