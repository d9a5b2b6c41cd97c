import Reel
import SystemSupport

/// `GET /metrics` of `reel serve`: the camera's state, the movie being recorded (per output), totals since the
/// server started, the sound's levels, the alarms, live streams, the recordings folder's free space, in
/// Prometheus's text format (`reel_` names). What the metrics are made of is a `Snapshot`, so rendering is pure.
final class ServeMetrics: Sendable {
    /// What finished takes add up to since the server started.
    struct Totals: Sendable, Equatable {
        var photos = 0
        var movies = 0
        var videoFrames = 0
        var droppedFrames = 0
        var duplicatedFrames = 0
        var bytes: Int64 = 0
    }

    struct Snapshot {
        var version = ReelVersion.current
        var uptime: Double
        var status: CameraService.Status
        /// Each output of the movie being recorded (the movie, then its tiers) and its progress.
        var recording: [(output: String, progress: RecordingProgress)] = []
        var session: SessionStatus?
        var totals: Totals
        var alarmKinds: [AlarmKind] = []
        var freeBytes: Int64?
        var eventStreams = 0
    }

    private let totals = Locked(Totals())
    let startedAt = MonotonicClock.nanoseconds()

    func countPhoto() { totals.withLock { $0.photos += 1 } }

    /// A movie finished (whatever became of it: a tap's movie is counted too, its frames were encoded).
    func count(_ result: RecordingResult) {
        totals.withLock { totals in
            for output in result.outputs ?? [result] {
                totals.movies += 1
                totals.videoFrames += output.videoFrames
                totals.droppedFrames += output.droppedFrames
                totals.duplicatedFrames += output.duplicatedFrames ?? 0
                totals.bytes += output.bytes
            }
        }
    }

    var currentTotals: Totals { totals.withLock { $0 } }

    static func render(_ snapshot: Snapshot) -> String {
        typealias Sample = PrometheusText.Sample
        var text = PrometheusText()
        let status = snapshot.status
        text.add("reel_build_info", .gauge, "The reel version serving.", [Sample(labels: [("version", snapshot.version)], value: 1)])
        text.add("reel_uptime_seconds", .gauge, "Seconds since reel serve started.", snapshot.uptime)
        text.add("reel_camera_running", .gauge, "1 while the camera's session runs.", status.running ? 1 : 0)
        text.add("reel_movie_recording", .gauge, "1 while a movie is being recorded.", status.recording == nil ? 0 : 1)
        text.add("reel_movie_paused", .gauge, "1 while the movie being recorded is paused.", status.paused ? 1 : 0)
        if let session = snapshot.session, status.running {
            text.add("reel_captured_frames_total", .counter, "Pictures the camera delivered since its session started.",
                     Double(session.capturedPictures ?? 0))
            text.add("reel_capture_dropped_frames_total", .counter, "Pictures the camera delivered that the session could not take.",
                     Double(session.droppedPictures ?? 0))
        }
        let outputs = snapshot.recording
        func perOutput(_ value: (RecordingProgress) -> Double) -> [Sample] {
            outputs.map { Sample(labels: [("output", $0.output)], value: value($0.progress)) }
        }
        text.add("reel_movie_media_seconds", .gauge, "Seconds recorded so far, per output of the movie being recorded.", perOutput { $0.mediaDuration })
        text.add("reel_movie_encoded_frames", .gauge, "Pictures encoded so far, per output of the movie being recorded.", perOutput { Double($0.videoFrames) })
        text.add("reel_movie_dropped_frames", .gauge, "Pictures dropped so far, per output of the movie being recorded.", perOutput { Double($0.droppedFrames) })
        text.add("reel_movie_bytes", .gauge, "Bytes written so far, per output of the movie being recorded.", perOutput { Double($0.bytes) })
        let totals = snapshot.totals
        text.add("reel_photos_total", .counter, "Photos taken since reel serve started.", Double(totals.photos))
        text.add("reel_movies_total", .counter, "Movies finished since reel serve started (each tier counts).", Double(totals.movies))
        text.add("reel_encoded_frames_total", .counter, "Pictures encoded into finished movies.", Double(totals.videoFrames))
        text.add("reel_dropped_frames_total", .counter, "Pictures finished movies dropped.", Double(totals.droppedFrames))
        text.add("reel_duplicated_frames_total", .counter, "Pictures finished movies repeated to keep their frame rate.", Double(totals.duplicatedFrames))
        text.add("reel_written_bytes_total", .counter, "Bytes of finished movies.", Double(totals.bytes))
        if let levels = snapshot.session?.levels, status.running {
            func perChannel(_ value: (AudioLevels.Channel) -> Double) -> [Sample] {
                levels.channels.enumerated().map { Sample(labels: [("channel", String($0.offset + 1))], value: value($0.element)) }
            }
            text.add("reel_audio_peak_dbfs", .gauge, "The sound's peak meter per channel, dBFS (falls 11.76 dB/s).", perChannel { $0.peak })
            text.add("reel_audio_rms_dbfs", .gauge, "The sound's RMS over the last 50 ms per channel, dBFS.", perChannel { $0.rms })
            text.add("reel_audio_peak_hold_dbfs", .gauge, "The highest peak of the last 20 s per channel, dBFS.", perChannel { $0.peakHold })
            text.add("reel_audio_clipped_samples_total", .counter, "Samples at full scale since the camera's session started, per channel.",
                     perChannel { Double($0.clippedSamples) })
        }
        text.add("reel_alarm_active", .gauge, "1 while an alarm the camera is watched for (--alarm) is on.",
                 snapshot.alarmKinds.map { kind in Sample(labels: [("kind", kind.rawValue)], value: status.alarms.contains { $0.kind == kind } ? 1 : 0) })
        text.add("reel_live_push_connected", .gauge, "1 while a push of the camera (--live-push) is connected.",
                 (snapshot.session?.livePushes ?? []).map { Sample(labels: [("url", $0.url)], value: $0.state == .connected ? 1 : 0) })
        if let free = snapshot.freeBytes {
            text.add("reel_recordings_free_bytes", .gauge, "Free space of the recordings folder's filesystem.", Double(free))
        }
        text.add("reel_preview_viewers", .gauge, "Viewers of /preview.mjpg.", Double(status.previewViewers))
        text.add("reel_event_streams", .gauge, "Clients of /api/events.", Double(snapshot.eventStreams))
        return text.text
    }
}
