import Foundation

/// A tmpfs of a given size mounted for one test, to run a disk to its limits without touching the real one.
/// Mounting needs root: CI runs the suite as root; elsewhere the test prints why it was skipped.
public struct SmallFilesystem {
    public let path: String

    /// Nil (after printing the reason) when this process may not mount.
    public static func mount(megabytes: Int, for test: String) throws -> SmallFilesystem? {
        guard getuid() == 0 else {
            print("skipped \(test): mounting a \(megabytes) MiB tmpfs needs root (CI runs the suite as root)")
            return nil
        }
        let path = try Scratch.folder("reel-tmpfs")
        let mount = try Processes.shell("mount -t tmpfs -o size=\(megabytes)m reeltest \(path)")
        guard mount.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw PictureComparison.SetupFailure("mount tmpfs at \(path) failed: \(mount.standardError)")
        }
        return SmallFilesystem(path: path)
    }

    public func unmount() {
        _ = try? Processes.shell("umount \(path)")
        try? FileManager.default.removeItem(atPath: path)
    }
}
