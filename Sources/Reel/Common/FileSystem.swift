import FoundationEssentials
import Glibc
import SystemSupport

/// File questions answered with stat(2) (FoundationEssentials' FileManager wants an ObjCBool for this one), and
/// the syncs that make a finished file survive a power cut.
public enum FileSystem {
    /// Whether `path` names a folder (following symbolic links).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` exists and is something other than a regular file or folder (a named pipe, a device,
    /// a socket): nothing to replace with a movie or a picture.
    static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// Whether two paths name the same file (after symbolic links, and for hard links too); false when
    /// either does not exist.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The path with symbolic links and `..` resolved, when it exists.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The longest file name (bytes) the file system holding `folder` takes (NAME_MAX, 255 on Linux's).
    static func longestFileName(in folder: String) -> Int {
        let limit = pathconf(folder, Int32(_PC_NAME_MAX))
        return limit > 0 ? limit : Int(NAME_MAX)
    }

    /// Writes `bytes` to a new or truncated file; nil on success, else what failed (strerror's text).
    static func write(_ bytes: [UInt8], to path: String) -> String? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.opening("open") { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        } catch {
            return String(cString: strerror(error.code))
        }
        let descriptor = file.raw
        var problem: String? = nil
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                do throws(SystemError) {
                    let written = try SystemCall.retrying("write") { Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
                    guard written > 0 else {
                        problem = String(cString: strerror(EIO))
                        return
                    }
                    offset += written
                } catch {
                    problem = String(cString: strerror(error.code))
                    return
                }
            }
        }
        if let code = file.close(), problem == nil { problem = String(cString: strerror(code)) }
        return problem
    }

    /// Pushes a file's data to the disk (fsync); false when it could not be opened or synced.
    @discardableResult
    static func sync(_ path: String) -> Bool {
        guard let file = try? FileDescriptor.opening("open", { open(path, O_RDONLY | O_CLOEXEC) }) else { return false }
        return fsync(file.raw) == 0
    }

    /// Pushes the entries of the folder holding `path` to the disk: a new or renamed file's name survives a
    /// power cut only once its folder is synced, however much of the file itself was (POSIX; ext4 and XFS
    /// alike). False when the folder could not be opened or synced.
    @discardableResult
    static func syncFolder(containing path: String) -> Bool {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard let entries = try? FileDescriptor.opening("open", { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) else { return false }
        return fsync(entries.raw) == 0
    }

    /// Rejects a file about to be written before anything is: its folder must exist and be writable, the path
    /// must not be a folder or a special file, nor an existing file unless `overwrite`. `what` names it in the
    /// messages ("the still"), `names` says what a good name ends in (".jpg or .png").
    static func checkNewFile(_ path: String, what: String, names: String, overwrite: Bool) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard isFolder(folder) else {
            throw ReelError.invalidInput("folder \(folder) for \(what) does not exist: create it first")
        }
        guard access(folder, W_OK) == 0 else {
            throw ReelError.invalidInput("folder \(folder) for \(what) is not writable (\(String(cString: strerror(errno)))): choose another folder")
        }
        if isFolder(path) || isSpecialFile(path) {
            throw ReelError.invalidInput("\(path) is a folder or a special file: give \(what) a file name ending in \(names)")
        }
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            throw ReelError(.outputExists, "\(path) already exists: choose another name or allow overwriting")
        }
    }

    /// Renames a finished file into place so that a power cut leaves either no file under `destination` or
    /// the whole one: its data is synced before the rename, and the folder after it. Returns 0, or the errno
    /// of a failed rename (a failed sync is not an error: the file is complete, only its durability is less).
    public static func moveIntoPlace(_ source: String, _ destination: String) -> Int32 {
        sync(source)
        guard rename(source, destination) == 0 else { return errno }
        syncFolder(containing: destination)
        return 0
    }

    /// Creates a folder and any missing folders above it, each one's entry synced into its parent, so a power
    /// cut cannot lose a folder whose files were synced (a file's own sync does not reach the folders above).
    public static func createFolders(_ path: String) throws {
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" && !isFolder(current) {
            missing.append(current)
            current = current.lastIndex(of: "/").map { $0 == current.startIndex ? "/" : String(current[..<$0]) } ?? ""
        }
        for folder in missing.reversed() {
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                throw ReelError.invalidInput("cannot create the folder \(folder): \(String(cString: strerror(errno)))")
            }
            syncFolder(containing: folder)
        }
    }
}
