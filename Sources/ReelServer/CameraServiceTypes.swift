import Reel

/// What CameraService takes and gives through the API: a movie's options, a take's outcome, the camera's status.
extension CameraService {
    /// Options of a movie started from the API or the page.
    struct MovieRequest: Codable, Sendable {
        var preset: String?
        var maxDuration: Double?
        var maxSize: String?
        /// The disk's free-space floor (default: the library's, as reel record).
        var minFree: String?
        var segmentDuration: Double?
        /// Presets of further movies of the same take (`movie-…-352x288.mov`).
        var tiers: [String] = []
    }

    /// What a shutter release or a stop gave.
    struct Shot: Codable, Sendable {
        var kind: String
        var name: String?
        var result: RecordingResult?
    }

    struct Status: Codable, Sendable {
        var running: Bool
        var inputs: Inputs
        var recording: String?
        var paused: Bool
        /// Seconds recorded in the current movie.
        var recorded: Double?
        var holdThreshold: Double
        var previewViewers: Int
        /// The camera's LL-HLS playlist while it streams (`reel serve --live`).
        var live: String?
        /// The alarms on now (`reel serve --alarm`), each since `start` seconds of the camera's session.
        var alarms: [Alarm] = []
        /// Seconds of the camera's session now (to tell how long an alarm has been on).
        var time: Double?
        /// Seconds the replay buffer keeps (`--replay-buffer`), while the camera runs: the page offers to save them.
        var replaySeconds: Double?
        /// What starts a triggered movie (`--trigger`), and the events on now.
        var triggers: [TriggerKind] = []
        var triggersOn: [TriggerEvent] = []
        /// With several video inputs: the layout now, and those the page offers.
        var layout: String? = nil
        var layouts: [String] = []
    }
}
