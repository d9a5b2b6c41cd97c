import Foundation
import PackagePlugin

/// Compiles web/* (the page `reel serve` serves: HTML, JavaScript, CSS) into the ReelServer module as string
/// literals, so the binary carries its page and needs no files beside it. web/ stays the one source of truth.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "web")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { ["html", "js", "css", "svg"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPage.swift")
        // Each file becomes a raw multi-line string literal with a delimiter no page file contains ("""###).
        let script = ####"""
            out="$1"; shift
            {
              echo '// Generated from web/* by the EmbedPage plugin. Do not edit.'
              echo 'let embeddedPageFiles: [(name: String, text: String)] = ['
              for file in "$@"; do
                printf '    (name: "%s", text: ###"""\n' "$(basename "$file")"
                cat "$file"
                printf '\n"""###),\n'
              done
              echo ']'
            } > "$out"
            """####
        return [.buildCommand(
            displayName: "Embedding \(files.count) page files",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "embed-page", output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output])]
    }
}
