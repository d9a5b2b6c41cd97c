import FoundationEssentials
import Glibc

/// Finds presets: the built-in tiers (compiled in from presets/*.json) or a user's JSON file.
public enum PresetLibrary {
    /// The built-in presets, in a stable order from smallest to largest.
    public static func builtIn() -> [Preset] {
        builtInResult.presets
    }

    public static var builtInNames: [String] { builtIn().map(\.name) }

    public static let defaultName = "720p"

    /// A built-in preset by name, or a preset file when `nameOrPath` ends in .json or names a file.
    public static func preset(named nameOrPath: String) throws -> Preset {
        if let preset = builtIn().first(where: { $0.name == nameOrPath }) { return preset }
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") {
            return try load(path: nameOrPath)
        }
        throw ReelError.invalidInput(
            "unknown preset '\(nameOrPath)': use one of \(builtInNames.joined(separator: ", ")) or a path to a .json file")
    }

    public static func load(path: String) throws -> Preset {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReelError.invalidInput("preset file \(path) cannot be read: check the path")
        }
        return try PresetParser.parse(data, source: path)
    }

    private static let builtInResult: (presets: [Preset], errors: [String]) = {
        var presets: [Preset] = []
        var errors: [String] = []
        for file in embeddedPresetFiles {
            do {
                presets.append(try PresetParser.parse(Data(file.json.utf8), source: "presets/\(file.name).json"))
            } catch {
                errors.append("\(error)")
            }
        }
        presets.sort { ($0.video.width * $0.video.height, $0.name) < ($1.video.width * $1.video.height, $1.name) }
        return (presets, errors)
    }()

    /// Problems in the compiled-in presets (a test asserts there are none).
    public static var builtInErrors: [String] { builtInResult.errors }
}
