import FoundationEssentials
import Glibc

/// The folder a live stream writes: checked with the recording's other outputs before anything is written,
/// and made ready (created, an earlier stream's files removed when overwriting) just before the start.
package enum LiveFolder {
    /// The names an HLS stream writes there (the playlist, the init segment, `segmentN.m4s`, `partN.I.m4s`),
    /// and the hidden names each is written under first (`.NAME.partial`; `.init.mp4.muxer` for FFmpeg's header).
    package static func isStreamFile(_ name: String) -> Bool {
        if name == "." + HLSWriter.initName + ".muxer" { return true }
        if name.hasPrefix("."), name.hasSuffix(".partial") { return isStreamFile(String(name.dropFirst().dropLast(".partial".count))) }
        if name == HLSWriter.playlistName || name == HLSWriter.initName { return true }
        guard name.hasSuffix(".m4s") else { return false }
        let isNumber: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
        if name.hasPrefix("segment") { return isNumber(name.dropFirst("segment".count).dropLast(".m4s".count)) }
        guard name.hasPrefix("part") else { return false }
        let numbers = name.dropFirst("part".count).dropLast(".m4s".count).split(separator: ".", omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy(isNumber)
    }

    /// Rejects a stream that cannot be written, before anything is: a folder that is a file or an output's
    /// name, a missing or unwritable parent, no write permission, two streams in one folder, an input among
    /// the names a stream writes, an earlier stream's files (unless `overwrite`). `variants`: the folders each
    /// stream gets inside its own when the recording has tiers, checked the same way.
    static func check(_ streams: [LiveStream], variants: [String] = [], plan: OutputPlan, overwrite: Bool) throws {
        let folders = FolderFacts()
        let outputs = Set(plan.names.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path })
        let inputs = plan.inputs.compactMap(FileSystem.realPath)
        var seen: Set<String> = []
        for stream in streams {
            try stream.validate()
            let folder = URL(fileURLWithPath: stream.folder).standardizedFileURL.path
            guard seen.insert(folder).inserted else {
                throw ReelError.invalidInput("--live \(ErrorText.path(stream.folder)) is given twice: give each live stream a folder of its own")
            }
            guard !outputs.contains(folder) else {
                throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) is the name of an output of this recording: choose another folder")
            }
            if folders.facts(of: folder).isFolder {
                try checkExisting(folder, described: "live folder \(ErrorText.path(stream.folder))", inputs: inputs,
                                  folders: folders, overwrite: overwrite)
            } else {
                var info = stat()
                if lstat(folder, &info) == 0 {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) is a file, not a folder: choose a folder")
                }
                let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
                let facts = folders.facts(of: parent)
                guard facts.isFolder else {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) cannot be created: \(ErrorText.path(parent)) does not exist")
                }
                guard facts.isWritable else {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) cannot be created: \(ErrorText.path(parent)) is not writable")
                }
            }
            for name in variants {
                let variant = folder + "/" + name
                var info = stat()
                guard lstat(variant, &info) == 0 else { continue }
                guard folders.facts(of: variant).isFolder else {
                    throw ReelError.invalidInput("\(ErrorText.path(variant)) (the live stream of tier \(name)) is a file, not a folder: choose another live folder")
                }
                try checkExisting(variant, described: "\(ErrorText.path(variant)) (the live stream of tier \(name))", inputs: inputs,
                                  folders: folders, overwrite: overwrite)
            }
        }
    }

    /// A folder that is there: writable, holding no input under a stream's names, and (unless `overwrite`)
    /// no earlier stream.
    private static func checkExisting(_ folder: String, described: String, inputs: [String], folders: FolderFacts,
                                      overwrite: Bool) throws {
        guard folders.facts(of: folder).isWritable else { throw ReelError.invalidInput("\(described) is not writable") }
        let real = FileSystem.realPath(folder) ?? folder
        if let input = inputs.first(where: { URL(fileURLWithPath: $0).deletingLastPathComponent().path == real
                                             && isStreamFile(URL(fileURLWithPath: $0).lastPathComponent) }) {
            throw ReelError.invalidInput("\(described) would overwrite the input file \(ErrorText.path(input)): choose another folder")
        }
        if !overwrite { try rejectEarlierStream(in: folder) }
    }

    private static func rejectEarlierStream(in folder: String) throws {
        guard let earlier = contents(of: folder).first(where: isStreamFile) else { return }
        throw ReelError(.outputExists, "\(ErrorText.path(folder + "/" + earlier)) already exists (an earlier live stream): choose another folder or allow overwriting")
    }

    /// Creates the folder, or removes an earlier stream's files from it (the check allowed overwriting).
    package static func prepare(_ stream: LiveStream) throws {
        if !FileSystem.isFolder(stream.folder) {
            try FileSystem.createFolders(stream.folder)
            return
        }
        for name in contents(of: stream.folder) where isStreamFile(name) { unlink(stream.folder + "/" + name) }
    }

    private static func contents(of folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            names.append(name)
        }
        return names
    }
}
