import Reel

/// Sound levels as a person reads them: a bar per channel on the status line (`L ██████▍··`), a line per
/// channel for `reel ctl SOCKET levels`. Bars span −60…0 dBFS of the peak meter.
enum LevelText {
    static let floor = -60.0

    /// `██████▍··` for a level: whole cells, an eighth-cell step, dots for the rest.
    static func bar(_ decibels: Double, cells: Int) -> String {
        let fraction = decibels.isFinite ? min(max((decibels - floor) / -floor, 0), 1) : 0
        let eighths = Int((fraction * Double(cells * 8)).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        let used = eighths / 8 + (partial.isEmpty ? 0 : 1)
        return String(repeating: "█", count: eighths / 8) + partial + String(repeating: "·", count: max(0, cells - used))
    }

    /// A channel's name: L and R for stereo, 1, 2 ... otherwise (M for mono).
    static func name(_ index: Int, of count: Int) -> String {
        count == 1 ? "M" : count == 2 ? (index == 0 ? "L" : "R") : String(index + 1)
    }

    /// The status line's part: `L ██████▍·· R ████····`, with `CLIP` after a channel that clipped lately.
    static func compact(_ levels: AudioLevels, cells: Int = 8) -> String {
        levels.channels.enumerated().map { index, channel in
            "\(name(index, of: levels.channels.count)) " + bar(channel.peak, cells: cells) + (channel.peakHold >= -0.01 ? " CLIP" : "")
        }.joined(separator: " ")
    }

    static func decibels(_ value: Double) -> String {
        value.isFinite ? String(printf: "%.1f", value) : "-inf"
    }

    /// For `reel ctl SOCKET levels`: `L  peak -18.1  rms -21.1  hold -18.1 dBFS  clipped 0  ████████▌·····`.
    static func lines(_ levels: AudioLevels) -> [String] {
        levels.channels.enumerated().map { index, channel in
            "\(name(index, of: levels.channels.count))  peak \(decibels(channel.peak))  rms \(decibels(channel.rms))  "
                + "hold \(decibels(channel.peakHold)) dBFS  clipped \(channel.clippedSamples)  " + bar(channel.peak, cells: 16)
        }
    }
}
