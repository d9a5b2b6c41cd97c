import FoundationEssentials
import Glibc

/// The folder a live stream writes: checked with the recording's other outputs before anything is written,
/// and made ready (created, an earlier stream's files removed when overwriting) just before the start.
package enum LiveFolder {
    /// The names an HLS stream writes there (the playlist, the init segment, `segmentN.m4s`).
    static func isStreamFile(_ name: String) -> Bool {
        if name == HLSWriter.playlistName || name == HLSWriter.initName { return true }
        guard name.hasPrefix("segment"), name.hasSuffix(".m4s") else { return false }
        let number = name.dropFirst("segment".count).dropLast(".m4s".count)
        return !number.isEmpty && number.allSatisfy(\.isNumber)
    }

    /// Rejects a stream that cannot be written: a folder that is a file, a missing parent, no write
    /// permission, two streams in one folder, an earlier stream there (unless `overwrite`), the movie's folder
    /// itself holding a stream's names is fine.
    /// `variants`: the folders each stream gets inside its own when the recording has tiers, checked too.
    static func check(_ streams: [LiveStream], variants: [String] = [], overwrite: Bool) throws {
        var seen: Set<String> = []
        for stream in streams {
            for name in variants {
                let folder = stream.folder + "/" + name
                var info = stat()
                guard lstat(folder, &info) == 0 else { continue }
                guard FileSystem.isFolder(folder) else {
                    throw ReelError.invalidInput("\(ErrorText.path(folder)) (the live stream of tier \(name)) is a file, not a folder: choose another live folder")
                }
                if !overwrite { try rejectEarlierStream(in: folder) }
            }
            try stream.validate()
            let folder = URL(fileURLWithPath: stream.folder).standardizedFileURL.path
            guard seen.insert(folder).inserted else {
                throw ReelError.invalidInput("--live \(ErrorText.path(stream.folder)) is given twice: give each live stream a folder of its own")
            }
            if FileSystem.isFolder(folder) {
                guard access(folder, W_OK) == 0 else {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) is not writable")
                }
                if !overwrite { try rejectEarlierStream(in: folder) }
            } else {
                var info = stat()
                if lstat(folder, &info) == 0 {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) is a file, not a folder: choose a folder")
                }
                let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
                guard FileSystem.isFolder(parent) else {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) cannot be created: \(ErrorText.path(parent)) does not exist")
                }
                guard access(parent, W_OK) == 0 else {
                    throw ReelError.invalidInput("live folder \(ErrorText.path(stream.folder)) cannot be created: \(ErrorText.path(parent)) is not writable")
                }
            }
        }
    }

    private static func rejectEarlierStream(in folder: String) throws {
        guard let earlier = contents(of: folder).first(where: isStreamFile) else { return }
        throw ReelError(.outputExists, "\(ErrorText.path(folder + "/" + earlier)) already exists (an earlier live stream): choose another folder or allow overwriting")
    }

    /// Creates the folder, or removes an earlier stream's files from it (the check allowed overwriting).
    static func prepare(_ stream: LiveStream) throws {
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
