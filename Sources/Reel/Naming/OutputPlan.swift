import FoundationEssentials
import Glibc

/// Every file a command will write, known before it writes any: its movies (or their segments' name
/// patterns), tiers, stills and the hidden names they are written under until finalized. `check` holds
/// them against each other, the command's inputs and the files already there, so that a collision is a
/// usage error (exit 2) with nothing written, never a file overwritten or a run that fails half-way. One set
/// of rules for record, transcode and capture (RecordingPreparation), a session's added movies, and batch
/// job files (JobFile, across all jobs).
package struct OutputPlan: Sendable {
    package var names: [OutputName] = []
    /// Paths of file inputs (transcodes, grabs, `file:` sources).
    package var inputs: [String] = []

    package init() {}

    /// The movie of `path` (its segments with `segmentation`) and its hidden name.
    package mutating func addMovie(_ path: String, segmentation: Segmentation?, writesHidden: Bool, role: String) {
        if segmentation != nil {
            names.append(OutputName(segments: SegmentNaming(template: path), role: role, writesHidden: writesHidden))
        } else {
            names.append(OutputName(file: path, role: role, writesHidden: writesHidden))
        }
    }

    /// A still (written under a hidden name, renamed when complete); `replaces`: it may replace a file there.
    package mutating func addStill(_ path: String, role: String, replaces: Bool) {
        names.append(OutputName(file: path, role: role, writesHidden: true, replaces: replaces))
    }

    /// A recording's outputs: the main movie (its segments), each tier, the stills; its file inputs.
    package init(_ configuration: RecordingConfiguration) {
        let hidden = configuration.writingPath != configuration.outputPath
        if configuration.triggers != nil {
            names.append(OutputName(segments: SegmentNaming(template: configuration.outputPath), role: "triggered movies", writesHidden: true))
        }
        if configuration.hasOwnMovie {
            addMovie(configuration.outputPath, segmentation: configuration.segmentation, writesHidden: hidden, role: "output")
            for tier in configuration.tiers {
                addMovie(tier.outputPath, segmentation: configuration.segmentation, writesHidden: hidden,
                         role: "tier \(tier.preset.name)")
            }
        }
        if let still = configuration.firstFrameStill { addStill(still.path, role: "still", replaces: still.overwrite) }
        for still in configuration.hiddenFirstFrameStills { addStill(still.path, role: "still", replaces: still.overwrite) }
        inputs = [configuration.video, configuration.audio].compactMap { $0 }.filter { $0.kind == .file }.map(\.target)
    }

    /// What every command's outputs must satisfy, existing files aside: each a writable file name of a
    /// length the folder takes, no two writing the same file, none writing an input.
    /// `foldersExist`: the folders are there already (a batch creates its output folders when a job runs).
    package func checkNames(foldersExist: Bool = true) throws {
        for name in names {
            try OutputPlan.checkPlace(name, foldersExist: foldersExist)
        }
        switch OutputCollisions.first(among: [self]) {
        case .sameFile(let first, let second)?:
            throw ReelError.invalidInput("\(first.name.role) \(ErrorText.path(first.name.path)) and \(second.name.role) \(ErrorText.path(second.name.path)) would write the same file: give each its own name")
        case .input(let output, let input, _)?:
            throw ReelError.invalidInput("\(output.name.role) \(ErrorText.path(output.name.path)) would overwrite the input file \(ErrorText.path(input)): choose another output name")
        case nil:
            break
        }
        // By identity too: a hard or symbolic link to an input under a name an output would write.
        for input in inputs {
            if let name = names.first(where: { $0.existingFiles().contains { FileSystem.isSameFile($0, input) } }) {
                throw ReelError.invalidInput("\(name.role) \(ErrorText.path(name.path)) would overwrite the input file \(ErrorText.path(input)): choose another output name")
            }
        }
    }

    /// Files already there under the names the outputs would write (their hidden names aside).
    package func existingFiles() -> [(name: OutputName, file: String)] {
        names.flatMap { name in name.existingFiles().map { (name, $0) } }
    }

    /// `checkNames`, then, unless `overwrite`, no output may replace a file that is there.
    package func check(overwrite: Bool) throws {
        try checkNames()
        guard let (name, file) = existingFiles().first(where: { !overwrite && !$0.name.replaces }) else { return }
        let what = name.isPattern ? "\(ErrorText.path(file)) (a segment of \(ErrorText.path(name.path))) already exists"
                                  : "\(ErrorText.path(file)) already exists"
        throw ReelError(.outputExists, "\(what): choose another name or allow overwriting")
    }

    /// One output's place: its folder exists and is writable, it is not a folder or a device, and its file
    /// name (with the longest its fields can make it) fits the folder's file system.
    package static func checkPlace(_ name: OutputName, foldersExist: Bool, folders: FolderFacts = FolderFacts()) throws {
        let folder = name.folder
        if SegmentNaming.hasFields(folder) { return }  // a folder named by the date: seen when a segment opens
        let facts = folders.facts(of: folder)
        if foldersExist || facts.isFolder {
            guard facts.isFolder else {
                throw ReelError.invalidInput("output folder \(ErrorText.path(folder)) does not exist: create it first")
            }
            guard facts.isWritable else {
                throw ReelError.invalidInput("output folder \(ErrorText.path(folder)) is not writable")
            }
        }
        let limit = facts.isFolder ? facts.longestFileName : folders.facts(of: "/").longestFileName
        if name.longestFileName > limit {
            throw ReelError.invalidInput("\(name.role) file name \(ErrorText.path(name.fileName)) is \(name.longestFileName) bytes long\(name.isPattern ? " with its fields filled in" : ""); this file system takes at most \(limit): shorten it")
        }
        guard !name.isPattern else { return }
        var info = stat()
        guard stat(name.path, &info) == 0 else { return }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ReelError.invalidInput("\(ErrorText.path(name.path)) is a folder: give the \(name.role) a file name")
        }
        if type != S_IFREG {
            throw ReelError.invalidInput("\(ErrorText.path(name.path)) is not a regular file (a pipe or a device): give the \(name.role) a file name")
        }
    }
}

/// What `checkPlace` learns of each output folder (whether it is one, writable, its longest file name),
/// asked once per folder: a 10,000-job file into one folder checks it once, not 10,000 times.
package final class FolderFacts {
    package struct Facts {
        package var isFolder: Bool
        package var isWritable: Bool
        package var longestFileName: Int
    }

    private var known: [String: Facts] = [:]

    package init() {}

    package func facts(of folder: String) -> Facts {
        if let facts = known[folder] { return facts }
        let isFolder = FileSystem.isFolder(folder)
        let facts = Facts(isFolder: isFolder, isWritable: isFolder && access(folder, W_OK) == 0,
                          longestFileName: isFolder || folder == "/" ? FileSystem.longestFileName(in: folder) : Int(NAME_MAX))
        known[folder] = facts
        return facts
    }
}
