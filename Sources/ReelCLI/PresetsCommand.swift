import FoundationEssentials
import Glibc
import Reel

/// `reel presets [--json]`: the built-in quality tiers.
enum PresetsCommand {
    static let help = """
        usage: reel presets [--json]

        Lists the built-in presets (from presets/*.json). Use one with --preset NAME, or pass a JSON file of
        the same shape with --preset FILE.json.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do {
            parsed = try .jsonFlagOnly(arguments, command: "presets")
        } catch {
            return .reporting(error)
        }
        let presets = PresetLibrary.builtIn()
        if parsed.has("--json") {
            Terminal.writeOutput(Terminal.json(presets))
            return .success
        }
        var text = ""
        for preset in presets {
            let video = preset.video
            let rate: String
            switch video.rateControl {
            case .constantQuality(let crf): rate = "crf \(String(printf: "%g", crf))"
            case .averageBitRate(let bits): rate = "\(bits / 1000) kb/s"
            }
            let size = video.sizePolicy == .deviceBest ? "up to \(video.size)" : video.size
            text += "\(preset.name + String(repeating: " ", count: max(0, 10 - preset.name.count))) \(size) @ \(String(printf: "%g", video.fps)) fps, \(video.codec.displayName) (\(video.codec.encoderLibrary) \(video.speedPreset)) \(rate), \(video.profile), GOP \(video.keyframeInterval)\(video.latency == .low ? ", low latency" : ""); AAC \(preset.audio.sampleRate) Hz \(preset.audio.channels) ch \(preset.audio.bitRate / 1000) kb/s\n"
            text += "           \(preset.description)\n"
        }
        Terminal.writeOutput(text)
        return .success
    }
}
