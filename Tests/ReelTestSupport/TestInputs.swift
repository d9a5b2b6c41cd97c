import Foundation

/// Inputs made with the ffmpeg CLI for tests, as a user's files would be: any container, codec or defect
/// the command line can produce.
public enum TestInputs {
    /// Runs `ffmpeg -v error -y ARGUMENTS` (the output path is among them); throws with ffmpeg's message if it fails.
    public static func ffmpeg(_ arguments: [String], timeout: Double = 120) throws {
        let result = try Processes.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments, timeout: timeout)
        guard result.status == 0 else {
            throw PictureComparison.SetupFailure("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.standardError)")
        }
    }

    /// A short H.264/AAC movie of the test pattern and a tone.
    public static func movie(_ path: String, seconds: Double = 2, size: String = "320x240", rate: Int = 30) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)", "-f", "lavfi", "-i", "sine=frequency=440",
                    "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", path])
    }

    /// The JSON object a command printed on stdout.
    public static func json(_ output: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw PictureComparison.SetupFailure("not a JSON object: \(output)")
        }
        return object
    }
}
