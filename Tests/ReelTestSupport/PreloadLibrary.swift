import Foundation

/// LD_PRELOAD shims of the tests, built from their C source with the C compiler `make test` installs: the
/// write log (Tests/WriteLog) and the ALSA period (Tests/ALSAPeriod). One build per call, into `folder`.
public enum PreloadLibrary {
    /// Builds `source` (a path under Tests/) into `folder`/`name`.so; returns the library's path.
    public static func build(_ source: String, named name: String, in folder: String) throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../\(source)").standardizedFileURL.path
        let library = "\(folder)/\(name).so"
        let build = try Processes.run("/usr/bin/gcc", ["-shared", "-fPIC", "-O1", "-o", library, path, "-ldl"])
        guard build.status == 0 else { throw PictureComparison.SetupFailure("cc \(source): \(build.standardError)") }
        return library
    }
}
