import FoundationEssentials
import SystemSupport

/// What a recording gives back when it ends.
extension CaptureSession {
    /// The result of a session that ran without a movie of its own: how it ended, and nothing recorded.
    static func sessionResult(_ ending: SessionEngine.Ending, configuration: RecordingConfiguration,
                              startedAt: Int64) -> RecordingResult {
        RecordingResult(output: "", stopReason: ending.reason, recordedSuccessfully: false, duration: 0, bytes: 0,
                        videoFrames: 0, droppedFrames: 0, audioSamples: 0, preset: configuration.preset.name,
                        elapsed: Double(MonotonicClock.nanoseconds() - startedAt) / 1e9,
                        videoDevice: configuration.video?.description, audioDevice: configuration.audio?.description,
                        error: ending.message, still: nil, stages: nil)
    }

    /// The main movie's result with every movie's result under `outputs` (main first) when there are tiers.
    static func combined(_ results: [RecordingResult]) -> RecordingResult {
        var main = results[0]
        if results.count > 1 {
            main.outputs = results
            main.outputs![0].still = nil
        }
        return main
    }

    /// The recording's result: its movies', or without a movie of its own how it ended; with the replays saved
    /// and the triggered movies. The replay buffers are free for another recording from here.
    func result(_ results: [RecordingResult], ending: SessionEngine.Ending, configuration: RecordingConfiguration,
                startedAt: Int64) -> RecordingResult {
        var result = !configuration.hasOwnMovie ? CaptureSession.sessionResult(ending, configuration: configuration, startedAt: startedAt)
                                                : CaptureSession.combined(results)
        let (buffers, schedule) = shared.withLock { ($0.replayBuffers, $0.triggerSchedule) }
        for replay in buffers { replay.release() }
        let replays = buffers.flatMap(\.saves)
        if !replays.isEmpty { result.replays = replays }
        if let schedule {
            result.triggers = schedule.events
            result.triggered = schedule.movies
        }
        return result
    }
}
