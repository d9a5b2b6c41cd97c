import Glibc

/// File questions answered with stat(2) (FoundationEssentials' FileManager wants an ObjCBool for this one).
enum FileSystem {
    /// Whether `path` names a folder (following symbolic links).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
