import FoundationEssentials
import Reel

/// `reel join OUTPUT.mov INPUT1 INPUT2 ...`: movies encoded alike, one after another, copied.
enum JoinCommand {
    static let help = """
        usage: reel join OUTPUT.mov INPUT1 INPUT2 [INPUT ...] [--overwrite] [--json] [--quiet]

        Joins movies (the segments of one recording, takes of one preset) into one QuickTime movie, in the order
        given: every picture is copied, each input's right after the last one's, and the sound of each input's
        span (exactly what the input presents, to the sample) is encoded once across the joins as one AAC track,
        so it runs on without a gap, a repeat or a click in every player and stays with its pictures. The
        segments of one Reel recording join into the recording they were cut from: every picture once, every
        sample once.
        An input whose video is encoded otherwise (another size, preset or program) is encoded again to match the
        first: scaled to its size and encoded with the first movie's own encoder options (libx264's or libx265's,
        read from the stream), so its pictures share the first's sample description; the note names such inputs.
        Sound of another rate or channel count is converted; an input without sound is silent for its span. The
        video and the first sound track are joined; the first input's rotation and colour tags are kept.
        The output is written under a hidden .NAME.partial and renamed when complete; it may not be an input.

        --json prints the result: output, inputs, starts (seconds where each input begins), duration,
        videoFrames, audioSamples, audioEdits, bytes.

        exit codes: 0 written, 1 runtime failure (a full disk), 2 bad input (fewer than two inputs, an
        unreadable, damaged or video-less input, inputs encoded differently after a first movie whose encoder
        is unknown, OUTPUT an input or existing without --overwrite); no file is written on error.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        do {
            let parsed = try ParsedArguments(arguments, command: "join",
                                             specification: .init(valueOptions: [], flagOptions: ["--overwrite", "--json", "--quiet"]))
            guard parsed.positionals.count >= 3 else {
                throw UsageError("join: expected OUTPUT.mov and at least two INPUT movies")
            }
            let result = try Joiner.join(JoinRequest(inputs: Array(parsed.positionals.dropFirst()), output: parsed.positionals[0],
                                                     overwrite: parsed.has("--overwrite")))
            if parsed.has("--json") {
                Terminal.writeOutput(Terminal.json(result))
            } else if !parsed.has("--quiet") {
                Terminal.writeOutput("\(result.output): \(result.inputs) movies joined, \(NumberText.plain((result.duration * 1000).rounded() / 1000)) s, "
                                     + "\(result.videoFrames) frames" + (result.audioSamples.map { ", \($0) sound samples" } ?? "") + "\n")
            }
            return .success
        } catch {
            return .reporting(error)
        }
    }
}
