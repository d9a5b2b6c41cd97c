import FoundationEssentials
import Glibc
import Reel

/// `reel transcode INPUT OUTPUT.mov [--preset ...] [limits] [--json]`.
enum TranscodeCommand {
    static let help = """
        usage: reel transcode INPUT OUTPUT.mov [--preset NAME|FILE] [--size WxH] [--fps N] [--tier PRESET:PATH ...]
                              [--max-duration S] [--max-size BYTES] [--min-free BYTES] [--fragment-interval S] [--still FILE]
                              [--segment-duration S] [--segment-size BYTES] [--overwrite] [--json] [--quiet]

        Converts any file FFmpeg can read to an H.264 (or HEVC) + AAC QuickTime movie at a preset (default
        720p). The picture keeps its aspect ratio: it is fitted inside the preset's size with black bars, never
        stretched or cropped. Audio is resampled to the preset's rate and channels; a rotation carries over. Video-only and
        audio-only inputs give video-only and audio-only movies. The same limits as `record` apply; a complete
        conversion ends with stopReason inputEnded. A damaged or truncated input is converted up to where it
        stops being readable (a usable partial movie); an input that cannot be opened at all is exit 2.
        The output is written under a hidden .NAME.partial and renamed when finalized; with fragments (default
        every 10 s, --fragment-interval 0 for none) even that temporary file plays up to its last fragment.
        The movie keeps the file's timeline at the preset's constant frame rate, as ffmpeg's fps filter: each
        frame is the picture on screen at its time (a slower source's pictures repeat, counted in
        duplicatedFrames), video that starts late shows its first picture from 0, holes in the audio stay
        silent, and joined MPEG-TS segments play as one. Cover art is not video. A named pipe or <(...) works.
        --tier PRESET:PATH (repeatable) writes further movies at other presets from the same decode (a 352x288
        proxy beside a 720p copy): the input is read and decoded once.
        --segment-duration S / --segment-size BYTES split the output into consecutive movies as `record` does
        (OUTPUT then names them: {index}, or -001, -002 ... before .mov).
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let options: RecordingOptions
        var configuration: RecordingConfiguration
        do {
            let parsed = try ParsedArguments(arguments, command: "transcode", specification: .init(
                valueOptions: Set(["--preset", "--size", "--fps", "--max-duration", "--max-size", "--min-free", "--fragment-interval",
                               "--still", "--still-quality", "--tier"]).union(RecordingOptions.segmentOptions),
                flagOptions: RecordingOptions.flagOptions))
            guard parsed.positionals.count == 2 else { throw UsageError("transcode: expected INPUT and OUTPUT.mov") }
            let output = parsed.positionals[1]
            try RecordingOptions.checkMovieOutput(output, command: "transcode")
            options = try RecordingOptions(parsed, outputPath: output, needsSources: false)
            let request = Transcoder.Request(
                inputPath: parsed.positionals[0], outputPath: output, preset: options.configuration.preset,
                limits: options.configuration.limits, overwrite: options.configuration.overwrite,
                firstFrameStill: options.configuration.firstFrameStill, tiers: options.configuration.tiers,
                segmentation: options.configuration.segmentation)
            configuration = Transcoder.configuration(for: request)
            configuration.fragmentInterval = options.configuration.fragmentInterval
        } catch {
            return .reporting(error)
        }
        do {
            let result = try RecordCommand.record(configuration, quiet: options.quiet)
            return RecordCommand.report(result, json: options.json)
        } catch {
            return .reporting(error, floorOption: options.floorOption)
        }
    }
}
