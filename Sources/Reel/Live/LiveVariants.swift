import FoundationEssentials
import SystemSupport

/// The variant streams of one `--live DIR` when the recording has tiers: each movie streams into a folder
/// of its own (DIR/720p/, DIR/352x288/ ...), and DIR/index.m3u8 is the multivariant playlist over them,
/// written once every variant has its init segment (so CODECS are known) and again as each one's bit rates
/// are measured. The variants' segments are aligned (every movie forces keyframes on the same grid), so a
/// player can switch between them at any segment.
final class LiveVariants: Sendable {
    let folder: String
    private struct State {
        var variants: [HLSMultivariantPlaylist.Variant?]
        var written = false
        var failure: String?
    }
    private let state: Locked<State>

    init(folder: String, count: Int) {
        self.folder = folder
        state = Locked(State(variants: Array(repeating: nil, count: count)))
    }

    /// The variant folder names for the movies' presets, in order: the preset's name made safe for a path,
    /// with -2, -3 ... for a name given twice.
    static func folderNames(presets: [String]) -> [String] {
        var used: [String: Int] = [:]
        return presets.map { name in
            let safe = String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
            let base = safe.isEmpty || safe.hasPrefix(".") ? "variant" + safe : safe
            used[base, default: 0] += 1
            return used[base]! == 1 ? base : "\(base)-\(used[base]!)"
        }
    }

    /// Variant `index` opened (or measured more): the playlist is written once all have opened, and again
    /// after each later report. The variants report from their own threads: the playlist is written under
    /// the lock, one report at a time and in order (its hidden name is one, and a newer text must not be
    /// replaced by an older one).
    func report(_ index: Int, _ variant: HLSMultivariantPlaylist.Variant) {
        state.withLock { state in
            state.variants[index] = variant
            guard state.variants.allSatisfy({ $0 != nil }) else { return }
            state.written = true
            let text = HLSMultivariantPlaylist(variants: state.variants.compactMap { $0 }).text
            do {
                try HLSWriter.place(Array(text.utf8), as: HLSWriter.playlistName, in: folder)
            } catch {
                state.failure = state.failure ?? "\(error)"
            }
        }
    }

    /// The live outputs of each movie (the main one first, then the tiers) for the recording's streams: with
    /// one movie, each stream is its folder; with tiers, each stream's folder gets a variant folder per
    /// movie and a multivariant playlist.
    static func outputs(for streams: [LiveStream], presets: [Preset]) -> [[LiveOutput]] {
        guard presets.count > 1 else { return [streams.map { LiveOutput(stream: $0) }] }
        var perMovie: [[LiveOutput]] = presets.map { _ in [] }
        let names = folderNames(presets: presets.map(\.name))
        for stream in streams {
            let group = LiveVariants(folder: stream.folder, count: presets.count)
            for (index, preset) in presets.enumerated() {
                var own = stream
                own.folder = stream.folder + "/" + names[index]
                perMovie[index].append(LiveOutput(stream: own, variant: LiveOutput.Variant(
                    group: group, index: index, uri: names[index] + "/" + HLSWriter.playlistName,
                    declaredBitRate: declaredBitRate(preset), frameRate: preset.video.fps)))
            }
        }
        return perMovie
    }

    /// The most a preset's stream should take before any segment is measured: its VBV ceiling or average
    /// rate (a constant-quality preset without a ceiling: 0.2 bits a pixel), and its sound.
    static func declaredBitRate(_ preset: Preset) -> Int {
        let video: Int
        if let ceiling = preset.video.maxRate {
            video = ceiling
        } else if case .averageBitRate(let rate) = preset.video.rateControl {
            video = rate * 3 / 2
        } else {
            video = Int(0.2 * Double(preset.video.width * preset.video.height) * preset.video.fps)
        }
        return video + preset.audio.bitRate
    }

    /// Why the multivariant playlist could not be written, if it could not.
    var failure: String? { state.withLock { $0.failure } }
}
