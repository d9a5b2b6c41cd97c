import FoundationEssentials
import Glibc
import SystemSupport
@_spi(ReelTools) import Reel
import ReelBatch

/// The one-line live status on a terminal (stderr), redrawn in place: `● REC 00:22  1.2 MB  30.0 fps  dropped 0`
/// (with `segment 3` after the time when the recording is segmented), and a bar per sound channel
/// (`L ██████▍··`), redrawn with each levels update.
/// Silent when stderr is not a TTY or with --quiet.
final class StatusLine: Sendable {
    let isEnabled: Bool
    /// The recording's latest progress line and sound levels, drawn together.
    private let recording = Locked<(line: String?, levels: AudioLevels?)>((nil, nil))

    init(quiet: Bool) {
        isEnabled = !quiet && Terminal.standardErrorIsTTY
    }

    func show(_ progress: RecordingProgress, limit: Double?) {
        guard isEnabled else { return }
        var line = "\u{25CF} REC \(StatusLine.clock(progress.mediaDuration))"
        if let limit { line += " / \(StatusLine.clock(limit))" }
        if let segment = progress.segment { line += "  segment \(segment)" }
        line += "  \(ByteCount.format(progress.bytes))  \(String(printf: "%.1f", progress.framesPerSecond)) fps"
        line += "  dropped \(progress.droppedFrames)"
        let levels = recording.withLock { state in
            state.line = line
            return state.levels
        }
        Terminal.writeError("\r\u{1B}[K" + line + (levels.map { "  " + LevelText.compact($0) } ?? ""))
    }

    /// New sound levels: the recording's line again with them.
    func show(_ levels: AudioLevels) {
        guard isEnabled else { return }
        let line = recording.withLock { state in
            state.levels = levels
            return state.line
        }
        guard let line else { return }
        Terminal.writeError("\r\u{1B}[K" + line + "  " + LevelText.compact(levels))
    }

    /// For work of known length (transcoding): `45%  00:22 / 01:30  ETA 00:12  62.0 fps`.
    func showProgress(_ progress: RecordingProgress, total: Double) {
        guard isEnabled, total > 0 else { return }
        let fraction = min(max(progress.mediaDuration / total, 0), 1)
        var line = "\(Int(fraction * 100))%  \(StatusLine.clock(progress.mediaDuration)) / \(StatusLine.clock(total))"
        if fraction > 0.01 {
            line += "  ETA \(StatusLine.clock(progress.elapsed * (1 - fraction) / fraction))"
        }
        line += "  \(String(printf: "%.1f", progress.framesPerSecond)) fps  \(ByteCount.format(progress.bytes))"
        Terminal.writeError("\r\u{1B}[K" + line)
    }

    /// For batches: `batch 3/20 done  running: cam1, t1`.
    func showBatch(_ progress: BatchRunner.Progress) {
        guard isEnabled else { return }
        var line = "batch \(progress.finished)/\(progress.total) done"
        if !progress.running.isEmpty { line += "  running: \(progress.running.joined(separator: ", "))" }
        Terminal.writeError("\r\u{1B}[K" + line)
    }

    func clear() {
        guard isEnabled else { return }
        Terminal.writeError("\r\u{1B}[K")
    }

    /// `00:22`, or `1:02:03` past an hour, like the seed app's time label.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (hours, minutes, secs) = (total / 3600, (total / 60) % 60, total % 60)
        return hours > 0 ? String(printf: "%ld:%02ld:%02ld", hours, minutes, secs) : String(printf: "%02ld:%02ld", minutes, secs)
    }
}
