import SystemSupport

extension MovieRecorder {
    /// What other threads read of the movie, under its one lock: its progress, then its result; until the
    /// result is there, who waits for it (called once it is, on the movie's thread). (Not an enum of the two
    /// phases: valgrind reads the copy of such a two-payload enum as a jump on uninitialised bytes.)
    struct Published {
        var progress: RecordingProgress?
        var result: RecordingResult?
        var waiters: [@Sendable (RecordingResult) -> Void] = []
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
            if state.result == nil { state.waiters.append(body) }
            return state.result
        }
        if let ready { body(ready) }
    }

    /// The movie is finalized: its result is there for every reader, and each waiter is called with it.
    func publish(_ result: RecordingResult) {
        let waiters = published.withLock { state in
            state.result = result
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter(result) }
    }
}
