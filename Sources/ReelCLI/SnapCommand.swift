import FoundationEssentials
import Glibc
import Reel

/// `reel snap OUTPUT.jpg [--video SPEC] [--preset ...] [--skip-frames N]`: a still from a live device.
enum SnapCommand {
    static let help = """
        usage: reel snap OUTPUT.jpg|png [--video SPEC] [--preset NAME|FILE] [--size WxH] [--skip-frames N]
                         [--still-quality N] [--camera-control NAME=VALUE ...] [--overwrite]

        Takes a picture from a live device without recording. Skips the first N frames first (default 15 for
        V4L2 cameras, whose first frames are dark while auto-exposure settles; 0 for other sources), then
        scales the next one to the preset's size. --camera-control gives a V4L2 camera's control a value
        first (repeatable; reel devices lists the controls), e.g. torch_intensity=100.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        do {
            let parsed = try ParsedArguments(arguments, command: "snap",
                                             specification: .init(valueOptions: ["--video", "--preset", "--size", "--skip-frames",
                                                                                  "--still-quality", "--camera-control"],
                                                                  flagOptions: ["--overwrite"]))
            guard parsed.positionals.count == 1 else { throw UsageError("snap: expected one OUTPUT.jpg|png") }
            var preset = try PresetLibrary.preset(named: parsed.value("--preset") ?? PresetLibrary.defaultName)
            try RecordingOptions.applySize(parsed.value("--size"), to: &preset)
            let skip = try parsed.integer("--skip-frames", in: LiveSnapshot.skipFramesRange)
            let spec = try parsed.value("--video").map(DeviceSpec.init(parsing:)) ?? DeviceDiscovery.defaultVideo()
            let still = StillRequest(path: parsed.positionals[0],
                                     quality: try RecordingOptions.stillQuality(parsed),
                                     overwrite: parsed.has("--overwrite"))
            try LiveSnapshot.take(from: spec, preset: preset, skipFrames: skip, to: still,
                                  cameraControls: try parsed.cameraControls())
            return .success
        } catch {
            return .reporting(error)
        }
    }
}
