import FoundationEssentials
import Reel

/// `reel trim INPUT OUTPUT.mov --from S --to S|--duration S [--exact|--keyframes]`: a span of a movie.
enum TrimCommand {
    static let help = """
        usage: reel trim INPUT OUTPUT.mov --from S (--to S | --duration S) [--exact | --keyframes] [--overwrite] [--json] [--quiet]

        Cuts the span from --from to --to (or --from plus --duration) seconds of INPUT's timeline into a
        QuickTime movie holding exactly the pictures shown in it (the first is the one on screen at --from, the
        last the last one shown before --to) and exactly its sound (to the sample, by the movie's edit list),
        with the input's rotation and colour tags.
        By default the cut is smart: only the groups of pictures the two ends fall in are decoded and encoded
        again (from --from to the end of its group, from the start of the last group to --to); every group
        between is copied packet for packet, and the sound is copied. The re-encoded pictures share the
        input's sample description: libx264 or libx265 is given the options the input was encoded with (both
        write them into the stream) and must write the input's own parameter sets, which is checked. Where
        that cannot be (another encoder made the input, groups that refer to each other, another codec), every
        kept picture is encoded again instead and the note says why.
        --exact      every kept picture encoded again (with the input's own encoder options when it has them,
                     else libx264 CRF 18, or libx265 CRF 20 for HEVC).
        --keyframes  nothing encoded: whole groups copied, from the keyframe at or before --from to the end of
                     the group holding the last picture before --to. Fast and inexact at both ends; the result
                     says where the movie really starts and ends on the input's timeline.
        Inputs: movies FFmpeg reads, with AAC sound or none; the video and the first sound track are kept, other
        tracks are left out (the note says so).
        The output is written under a hidden .NAME.partial and renamed when complete; it may not be INPUT.

        --json prints the result: output, mode, requestedFrom, requestedTo, start, end, duration, videoFrames,
        copiedFrames, reencodedFrames, audioSamples, bytes, note.

        exit codes: 0 written, 1 runtime failure (a full disk), 2 bad input (unreadable or damaged input, no
        video, --from not before --to, a time past the end, OUTPUT equal to INPUT or existing without
        --overwrite); no file is written on error.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        do {
            let parsed = try ParsedArguments(arguments, command: "trim",
                                             specification: .init(valueOptions: ["--from", "--to", "--duration"],
                                                                  flagOptions: ["--keyframes", "--exact", "--overwrite", "--json", "--quiet"]))
            guard parsed.positionals.count == 2 else { throw UsageError("trim: expected INPUT and OUTPUT.mov") }
            guard let from = try parsed.number("--from", in: Trimmer.timeRange) else {
                throw UsageError("trim: --from S is required (where the span starts, in seconds)")
            }
            let to: Double
            switch (try parsed.number("--to", in: Trimmer.timeRange), try parsed.number("--duration", in: Trimmer.timeRange)) {
            case (let end?, nil): to = end
            case (nil, let duration?): to = from + duration
            case (nil, nil): throw UsageError("trim: give where the span ends: --to S or --duration S")
            case (.some, .some): throw UsageError("trim: give --to or --duration, not both")
            }
            guard !(parsed.has("--exact") && parsed.has("--keyframes")) else {
                throw UsageError("trim: --exact and --keyframes exclude each other")
            }
            let mode: TrimMode = parsed.has("--keyframes") ? .keyframes : parsed.has("--exact") ? .exact : .smart
            let result = try Trimmer.trim(TrimRequest(input: parsed.positionals[0], output: parsed.positionals[1], from: from, to: to,
                                                      mode: mode, overwrite: parsed.has("--overwrite")))
            if parsed.has("--json") {
                Terminal.writeOutput(Terminal.json(result))
            } else if !parsed.has("--quiet") {
                Terminal.writeOutput("\(result.output): \(NumberText.plain(result.start))–\(NumberText.plain(result.end)) s of the input, "
                                     + "\(result.videoFrames) frames (\(result.copiedFrames) copied, \(result.reencodedFrames) encoded again)"
                                     + (result.note.map { "; \($0)" } ?? "") + "\n")
            }
            return .success
        } catch {
            return .reporting(error)
        }
    }
}
