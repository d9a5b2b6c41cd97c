/// The independent oracle's verdict on a whole file: the ffmpeg CLI decodes every frame of it.
public enum CleanDecode {
    /// What ffmpeg complained about while decoding `path` to nothing: empty when it decoded without a
    /// single error line and exited 0.
    public static func problems(in path: String) throws -> String {
        let decode = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        if decode.status == 0 && decode.standardError.isEmpty { return "" }
        return "exit \(decode.status): \(decode.standardError)"
    }
}
