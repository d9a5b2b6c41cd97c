import Foundation
import PackagePlugin

/// Compiles presets/*.json into the Reel module as string literals, so the built-in presets travel inside
/// the binary and `reel` finds them wherever it is copied. presets/ stays the one source of truth.
@main
struct EmbedPresets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let presetsFolder = context.package.directoryURL.appending(path: "presets")
        let files = try FileManager.default.contentsOfDirectory(at: presetsFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPresets.swift")
        // Each file becomes an entry of a raw multi-line string literal; JSON never contains the closing """#.
        let script = ##"""
            out="$1"; shift
            {
              echo '// Generated from presets/*.json by the EmbedPresets plugin. Do not edit.'
              echo 'let embeddedPresetFiles: [(name: String, json: String)] = ['
              for file in "$@"; do
                name=$(basename "$file" .json)
                printf '    (name: "%s", json: #"""\n' "$name"
                cat "$file"
                printf '\n"""#),\n'
              done
              echo ']'
            } > "$out"
            """##
        return [.buildCommand(
            displayName: "Embedding \(files.count) presets",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "embed-presets", output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output])]
    }
}
