import Glibc

/// Free space on a filesystem, as an unprivileged writer may use it (statvfs f_bavail).
package enum DiskSpace {
    package static func availableBytes(atFolder folder: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
