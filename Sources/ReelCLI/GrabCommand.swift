import FoundationEssentials
import Glibc
import Reel

/// `reel grab INPUT OUTPUT.jpg|png [--at SECONDS]`: the picture shown at a time of any movie, upright.
enum GrabCommand {
    static let help = """
        usage: reel grab INPUT OUTPUT.jpg|png [--at SECONDS] [--still-quality N] [--overwrite]

        Writes the picture shown at SECONDS (default 0, the first frame) of any movie FFmpeg can read, as
        players show it: SECONDS count from the start of the movie's timeline; exact in every container
        (decoded forward from a keyframe before, seeking further back where an MPEG-TS index is coarse);
        turned upright by the movie's rotation, non-square pixels made square, colours converted from the
        picture's own matrix. An audio file with cover art gives the art. The extension picks JPEG or PNG.

        exit codes: 0 written, 1 runtime failure, 2 bad input (unreadable input, no video, time past the end);
        no file is written on error.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        do {
            let parsed = try ParsedArguments(arguments, command: "grab",
                                             specification: .init(valueOptions: ["--at", "--still-quality"],
                                                                  flagOptions: ["--overwrite"]))
            guard parsed.positionals.count == 2 else { throw UsageError("grab: expected INPUT and OUTPUT.jpg|png") }
            let seconds = try parsed.number("--at", in: FrameGrabber.timeRange) ?? 0
            let still = StillRequest(path: parsed.positionals[1],
                                     quality: try RecordingOptions.stillQuality(parsed),
                                     overwrite: parsed.has("--overwrite"))
            try FrameGrabber.grab(inputPath: parsed.positionals[0], at: seconds, to: still)
            return .success
        } catch {
            return .reporting(error)
        }
    }
}
