import Glibc

/// When a pushed stream tries its server again, and which failures are worth trying again at all. Pure:
/// the push's thread (PushSink) asks it after every failure.
struct LiveBackoff: Sendable, Equatable {
    /// Seconds before attempt 1, 2, 3 … after a failure; the last one repeats (OBS waits 10 s flat, ffmpeg
    /// not at all: a short first wait finds a restarted server at once, the cap bounds a dead one's cost).
    static let delays: [Double] = [1, 2, 4, 8, 16, 30]

    /// Attempts failed since the last connection.
    private(set) var failures = 0

    /// The next attempt's number (1 …) and how long to wait for it.
    mutating func failed() -> (attempt: Int, delay: Double) {
        failures += 1
        return (failures, LiveBackoff.delays[min(failures, LiveBackoff.delays.count) - 1])
    }

    /// A connection was made: the next failure waits the shortest time again.
    mutating func connected() { failures = 0 }

    /// Whether a failure to connect or to send ends the stream instead of being retried. A server that is
    /// not (yet) there, unreachable or slow is retried, always; so is any failure once the stream has been
    /// connected (a server restart). A bad address or option is never retried. An RTMP server that took
    /// the connection and then hung up or answered with an error before the first publish refused the
    /// application or stream key: retrying would only hammer it (a name that does not resolve, which FFmpeg
    /// also reports as an I/O error, is looked up first and waited for: PushSink). (An SRT listener's refusal cannot be told
    /// from a lost packet by libsrt's error codes, so SRT retries it, visibly.)
    static func isPermanent(posixCode: Int32?, transport: LivePush.Transport, everConnected: Bool) -> Bool {
        guard let code = posixCode else { return !everConnected && transport == .rtmp }
        if [EINVAL, ENOSYS, EPROTONOSUPPORT, EAFNOSUPPORT].contains(code) { return true }
        if everConnected { return false }
        let network: Set<Int32> = [ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ENETDOWN, EAGAIN, EINTR, ECONNRESET]
        switch transport {
        case .srt: return false
        case .rtmp: return !network.contains(code)
        }
    }
}
