import FoundationEssentials
import Glibc
import Reel

/// The options `record` shares with the commands built on it (capture, transcode): sources, preset,
/// overrides, limits, orientation, output handling.
struct RecordingOptions {
    static let valueOptions: Set<String> = ["--video", "--audio", "--preset", "--size", "--fps", "--max-duration",
                                            "--max-size", "--min-free", "--fragment-interval", "--device-timeout",
                                            "--orientation", "--still", "--still-quality", "--camera-control", "--tier", "--layout", "--overlay", "--filter", "--audio-tracks"]
    static let flagOptions: Set<String> = ["--overwrite", "--json", "--quiet", "--restore-controls"]
    /// Segmenting, for record and transcode (a tap-or-hold capture is one movie).
    static let segmentOptions: Set<String> = ["--segment-duration", "--segment-size", "--keep-segments", "--keep-free"]

    /// Live streams of the movie, for record.
    static let liveOptions: Set<String> = ["--live", "--live-segment", "--live-keep", "--live-part"]
    static let liveFlagOptions: Set<String> = ["--low-latency"]

    /// Alarms, for record and capture.
    static let alarmOptions: Set<String> = ["--alarm"]
    static let alarmFlagOptions: Set<String> = ["--alarm-exit"]

    static let alarmHelp = """
        alarms (events on the status line, the control socket and reel serve; listed in the --json result):
          --alarm KIND[:THRESHOLD[:SECONDS]]  (repeatable, one per kind)
                                 silence   every channel's RMS below THRESHOLD dBFS (default -60) for SECONDS (10)
                                 clipping  samples at full scale; ends after SECONDS without one (default 1)
                                 black     98 % of the picture below THRESHOLD luma, 0-1 (default 0.1) for SECONDS (2)
                                 frozen    the picture changing by less than THRESHOLD, 0-1 (default 0.002) for SECONDS (10)
          --alarm-exit           exit 3 when the recording ends with an alarm still on (for batch jobs, schedulers)
        """

    static let liveHelp = """
        live streams (from the movie's encoders: no second encode):
          --live DIR             also write HLS (fMP4) to DIR for any web server: DIR/index.m3u8, init.mp4,
                                 segmentN.m4s; segments exact to the frame, each starting with a keyframe
                                 (repeatable; DIR is created when missing)
          --live srt://HOST:PORT[?OPTIONS]
                                 also push MPEG-TS to an SRT listener (libsrt's options in the query:
                                 latency=MS, passphrase=..., streamid=...)
          --live rtmp://HOST[:PORT]/APP/KEY
                                 also push FLV to an RTMP server (H.264 presets only)
                                 A lost server never stops the movie: Reel tries it again after 1, 2, 4 ... 30 s
                                 and says so; a server that refuses the stream key stops only that stream
          --live-segment S       seconds per segment (default \(NumberText.plain(LiveStream.defaultSegmentDuration)), with --low-latency \(NumberText.plain(LiveStream.defaultLowLatencySegmentDuration)); \(NumberText.plain(LiveStream.segmentDurationRange.lowerBound)) to \(NumberText.plain(LiveStream.segmentDurationRange.upperBound)))
          --live-keep N|all      segments the playlist lists, older ones deleted (default \(LiveStream.defaultWindow), at
                                 least \(LiveStream.windowRange.lowerBound)); all keeps the whole event
          --low-latency          Low-Latency HLS: each segment also in parts (partN.I.m4s, EXT-X-PART) listed as
                                 soon as written, with the next one as a preload hint
          --live-part S          seconds per part (default \(NumberText.plain(LiveStream.defaultPartDuration)); \(NumberText.plain(LiveStream.partDurationRange.lowerBound)) to \(NumberText.plain(LiveStream.partDurationRange.upperBound)); implies --low-latency)
        """

    static let segmentHelp = """
        segments (continuous recording):
          --segment-duration S   roll over into a new movie every S seconds of media, exact to the frame (each
                                 starts with a keyframe; together they hold every frame and sample once)
          --segment-size BYTES   roll over before a movie would pass BYTES (at least 90 % used; a burst of detail
                                 already in the encoder is kept, never dropped, and may pass it: see the note)
                                 OUTPUT names the segments: {index} (001, 002 ...), {date} and {time} (when each
                                 starts, 2026-11-30 and 14-05-09); without {index}, -001 ... goes before .mov.
                                 --max-duration, --max-size and --min-free then apply to the whole recording
          --keep-segments N      loop recording: keep only the newest N finished segments (deletes older ones)
          --keep-free BYTES      loop recording: when free space would fall under BYTES, delete the oldest
                                 finished segments of this recording instead of stopping (sets the --min-free floor)
        """

    static let help = """
          --video SPEC           picture source (default: first v4l2 camera, else lavfi:testsrc2); none for audio only.
                                 Repeat it to compose several (up to \(VideoLayout.maximumInputs)) into one picture, each read at
                                 its own rate; the first is input 1
          --layout NAME|FILE     where each video input goes: pip (default: input 1 full, the others as
                                 windows in the bottom right), side-by-side, grid, only:N, or a layout .json
                                 file (see README: Several inputs); reel ctl SOCK layout changes it while recording
          --overlay SPEC         draw on every picture (repeatable, in order): text:TEXT with %{localtime},
                                 %{time}, %{timecode} (the recording's clock) and %{frame}, or image:FILE.png;
                                 options after ?: at=bottom-left|top-right|...|X,Y, size=FRACTION, font=NAME,
                                 colour=C, box=0, e.g. 'text:Lab 2 %{localtime}?at=top-left&size=0.04'
          --filter NAME          deinterlace (bwdif), stabilize (deshake) or denoise (hqdn3d) each video input
                                 as it is captured (repeatable, in order)
          --audio SPEC|none      sound source (default: ALSA default capture device, else lavfi:sine). Repeat it
                                 to take several (up to \(RecordingConfiguration.maximumAudioInputs)), sample-aligned, each with its own clock
                                 drift correction and ?gain=-6dB
          --audio-tracks MODE    how several --audio inputs are recorded: mix (default: one track; a peak
                                 limiter keeps the sum under full scale, -0.1 dBFS, and leaves a mix that does
                                 not clip untouched) or separate (one track per input, named by its ?name=,
                                 else its spec; live streams take the first)
          --preset NAME|FILE     quality tier (default 720p): \(PresetLibrary.builtInNames.joined(separator: ", ")), or a .json file
          --size WxH             override the preset's picture size (even numbers)
          --fps N                override the preset's frame rate
          --tier PRESET:PATH     also record PATH (.mov) at another preset from the same capture, e.g.
                                 --tier 352x288:proxy.mov (repeatable); every movie starts on the same frame,
                                 --max-size applies to each file, --max-duration and --min-free to all
          --max-duration SECONDS stop after this much media
          --max-size BYTES       stop before the file (trailer included) would exceed this: 50M, 1.5G, 512Mi ...
          --min-free BYTES       stop before free disk space falls below this (default 64Mi; 0 disables)
          --fragment-interval S  write a movie fragment at least every S seconds, so the file plays up to the
                                 last one after a crash (default 10; 0 = index only at the end)
          --device-timeout S     a live device that delivers nothing for S seconds is lost: the recording ends
                                 (deviceLost) and the file is finalized (default 2)
          --orientation O        portrait, portrait-upside-down, landscape-left, landscape-right (default)
          --camera-control N=V   give a V4L2 camera's control a value before the first frame (repeatable, in
                                 order; names, ranges and menus as reel devices lists them), e.g.
                                 focus_automatic_continuous=0 focus_absolute=120, torch_intensity=100; or
                                 focus=auto|locked|manual:P, exposure=auto|manual:S, white_balance=auto|locked|K,
                                 torch=on|off|LEVEL, zoom=FACTOR
          --restore-controls     give the camera back its previous control values when the recording ends
          --still FILE.jpg|png   also write the first captured frame as a picture (from the raw frame)
          --still-quality N      JPEG quality 1-100 (default \(StillRequest.defaultQuality))
          --overwrite            replace an existing output file
          --json                 print the result as one JSON object on stdout
          --quiet                no status line
        SPEC is KIND:TARGET[?key=value&...] with KIND v4l2, alsa, pulse, x11grab, lavfi or file, e.g.
          v4l2:/dev/video0?input_format=mjpeg  alsa:hw:1,0  pulse:default  x11grab::0  lavfi:testsrc2?realtime=0
        BYTES takes K, M, G (powers of 1000) or Ki, Mi, Gi (powers of 1024).
        """

    var configuration: RecordingConfiguration
    var json: Bool
    var quiet: Bool
    /// `--alarm-exit`: an alarm still on at the end is exit 3.
    var alarmExit = false
    /// The option that set the free-space floor, for error lines (`--keep-free` sets it in loop recording).
    var floorOption: String {
        configuration.segmentation?.deletesOldestForFreeSpace == true ? "--keep-free" : "--min-free"
    }

    /// `needsSources: false` (transcoding) leaves video and audio unset instead of picking default devices.
    init(_ arguments: ParsedArguments, outputPath: String, needsSources: Bool = true) throws {
        var preset = try PresetLibrary.preset(named: arguments.value("--preset") ?? PresetLibrary.defaultName)
        try RecordingOptions.applySize(arguments.value("--size"), to: &preset)
        if let fps = try arguments.number("--fps", in: Preset.frameRateRange, unit: "frames per second") {
            preset.video.fps = fps
        }
        var limits = RecordingLimits()
        limits.maxDuration = try arguments.number("--max-duration", in: RecordingLimits.maxDurationRange)
        limits.maxFileSize = try arguments.byteCount("--max-size", examples: "50M, 1.5G, 512Mi")
        if let bytes = try arguments.byteCount("--min-free", examples: "100M, 1Gi, 0 to disable", allowsZero: true) {
            limits.minFreeDiskSpace = bytes
        }
        let fragmentInterval = try RecordingOptions.fragmentInterval(arguments)
        var orientation = Orientation.landscapeRight
        if let text = arguments.value("--orientation") {
            guard let value = Orientation(rawValue: text) else {
                throw UsageError("--orientation '\(text)' is not one of \(Orientation.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            orientation = value
        }
        let quality = try RecordingOptions.stillQuality(arguments)
        let still = arguments.value("--still").map {
            StillRequest(path: $0, quality: quality, overwrite: arguments.has("--overwrite"))
        }
        let videos = arguments.allValues("--video")
        let video = needsSources ? try RecordingOptions.source(videos.first, default: DeviceDiscovery.defaultVideo) : nil
        let audios = arguments.allValues("--audio")
        let audio = needsSources ? try RecordingOptions.source(audios.first, default: DeviceDiscovery.defaultAudio) : nil
        configuration = RecordingConfiguration(
            outputPath: outputPath, video: video, audio: audio, preset: preset, limits: limits,
            orientation: orientation, overwrite: arguments.has("--overwrite"), firstFrameStill: still,
            fragmentInterval: fragmentInterval)
        if needsSources { (configuration.additionalVideo, configuration.layout) = try RecordingOptions.composition(arguments) }
        (configuration.overlays, configuration.pictureFilters) = try RecordingOptions.effects(arguments)
        if needsSources { (configuration.additionalAudio, configuration.audioTracks) = try RecordingOptions.mix(arguments) }
        configuration.tiers = try RecordingOptions.tiers(arguments)
        configuration.segmentation = try RecordingOptions.segmentation(arguments, limits: &configuration.limits)
        (configuration.live, configuration.livePushes) = try RecordingOptions.live(arguments)
        configuration.alarms = try RecordingOptions.alarms(arguments)
        alarmExit = arguments.has("--alarm-exit")
        configuration.cameraControls = try arguments.cameraControls()
        configuration.restoresCameraControls = arguments.has("--restore-controls")
        if let seconds = try arguments.number("--device-timeout", in: RecordingConfiguration.deviceTimeoutRange) {
            configuration.deviceTimeout = seconds
        }
        json = arguments.has("--json")
        quiet = arguments.has("--quiet")
    }

    /// `--size WxH`: the preset's picture size, exactly (shared by record, capture, transcode and snap).
    static func applySize(_ text: String?, to preset: inout Preset) throws {
        guard let text else { return }
        guard let size = Preset.parseSize(text) else {
            throw UsageError("--size '\(text)' is not WIDTHxHEIGHT with even numbers from 16 up (e.g. 1280x720)")
        }
        (preset.video.width, preset.video.height) = size
        preset.video.sizePolicy = .exact
    }

    /// The movie output of record and transcode must be a QuickTime file.
    /// `--tier PRESET:PATH`, repeatable: further movies at other presets (the preset name comes first; a
    /// path may hold colons).
    static func tiers(_ arguments: ParsedArguments) throws -> [MovieTier] {
        try arguments.allValues("--tier").map { text in
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
                throw UsageError("--tier '\(text)' is not PRESET:PATH, e.g. --tier 352x288:proxy.mov")
            }
            let path = String(text[text.index(after: colon)...])
            try checkMovieOutput(path, command: "--tier")
            do {
                return MovieTier(outputPath: path, preset: try PresetLibrary.preset(named: String(text[..<colon])))
            } catch let error as ReelError {
                throw UsageError("--tier '\(text)': \(error.message)")
            }
        }
    }

    /// `--video SPEC` given more than once (the inputs after the first, composed with it) and `--layout`.
    static func composition(_ arguments: ParsedArguments) throws -> (more: [DeviceSpec], layout: VideoLayout?) {
        let videos = arguments.allValues("--video")
        if videos.count > 1, videos.contains("none") {
            throw UsageError("--video none leaves the picture out: it cannot be one of several --video inputs")
        }
        guard videos.count <= VideoLayout.maximumInputs else {
            throw UsageError("\(videos.count) --video inputs: at most \(VideoLayout.maximumInputs) are composed")
        }
        let more = try videos.dropFirst().map { try DeviceSpec(parsing: $0) }
        guard let name = arguments.value("--layout") else { return (more, nil) }
        if videos.first == "none" { throw UsageError("--layout places video inputs: this recording has none") }
        do {
            return (more, try VideoLayout.named(name, inputs: max(1, videos.count)))
        } catch let error as ReelError {
            throw UsageError("--layout: \(error.message)")
        }
    }

    /// `--audio SPEC` given more than once: the inputs after the first, mixed with it or recorded beside it
    /// (`--audio-tracks mix|separate`).
    static func mix(_ arguments: ParsedArguments) throws -> ([DeviceSpec], AudioTrackMode) {
        let audios = arguments.allValues("--audio")
        var mode = AudioTrackMode.mix
        if let tracks = arguments.value("--audio-tracks") {
            guard let chosen = AudioTrackMode(rawValue: tracks) else {
                throw UsageError("--audio-tracks '\(tracks)': use \(AudioTrackMode.names)")
            }
            mode = chosen
        }
        if audios.count > 1, audios.contains("none") {
            throw UsageError("--audio none leaves the sound out: it cannot be one of several --audio inputs")
        }
        guard audios.count <= RecordingConfiguration.maximumAudioInputs else {
            throw UsageError("\(audios.count) --audio inputs: at most \(RecordingConfiguration.maximumAudioInputs) are taken")
        }
        return (try audios.dropFirst().map { try DeviceSpec(parsing: $0) }, mode)
    }

    /// `--overlay SPEC` and `--filter NAME`, each repeatable, in order.
    static func effects(_ arguments: ParsedArguments) throws -> (overlays: [Overlay], filters: [PictureFilterKind]) {
        do {
            return (try arguments.allValues("--overlay").map { try Overlay(parsing: $0) },
                    try arguments.allValues("--filter").map { try PictureFilterKind(parsing: $0) })
        } catch let error as ReelError {
            throw UsageError(error.message)
        }
    }

    /// `--segment-duration`, `--segment-size`, `--keep-segments`, `--keep-free` (which sets the min-free floor).
    static func segmentation(_ arguments: ParsedArguments, limits: inout RecordingLimits) throws -> Segmentation? {
        var segmentation = Segmentation()
        segmentation.duration = try arguments.number("--segment-duration", in: Segmentation.durationRange)
        segmentation.size = try arguments.byteCount("--segment-size", examples: "100M, 1Gi")
        segmentation.keep = try arguments.integer("--keep-segments", in: Segmentation.keepRange)
        if let bytes = try arguments.byteCount("--keep-free", examples: "500M, 2Gi") {
            if arguments.value("--min-free") != nil {
                throw UsageError("--keep-free sets the free-space floor itself: give it or --min-free, not both")
            }
            limits.minFreeDiskSpace = bytes
            segmentation.deletesOldestForFreeSpace = true
        }
        guard segmentation.duration != nil || segmentation.size != nil else {
            // A triggered recording deletes its oldest movies for --keep-free too (TriggerOptions).
            if arguments.value("--keep-segments") != nil || (arguments.value("--keep-free") != nil && arguments.allValues("--trigger").isEmpty) {
                throw UsageError("--keep-segments and --keep-free need segments: add --segment-duration S or --segment-size BYTES")
            }
            return nil
        }
        return segmentation
    }

    /// `--alarm KIND[:THRESHOLD[:SECONDS]]` (repeatable, one per kind).
    static func alarms(_ arguments: ParsedArguments) throws -> [AlarmRule] {
        let rules = try arguments.allValues("--alarm").map { text in
            do { return try AlarmRule(parsing: text) } catch let error as ReelError { throw UsageError(error.message) }
        }
        for kind in AlarmKind.allCases where rules.filter({ $0.kind == kind }).count > 1 {
            throw UsageError("--alarm \(kind.rawValue) is given twice: give each kind once")
        }
        if arguments.has("--alarm-exit") && rules.isEmpty {
            throw UsageError("--alarm-exit needs an alarm to watch: add --alarm KIND")
        }
        return rules
    }

    /// `--live DIR|srt://…|rtmp://…` (repeatable), with `--live-segment S`, `--live-keep N|all` and
    /// `--low-latency` / `--live-part S` for every HLS stream.
    static func live(_ arguments: ParsedArguments) throws -> (folders: [LiveStream], servers: [LivePush]) {
        var folders: [String] = [], servers: [LivePush] = []
        for text in arguments.allValues("--live") {
            do {
                switch try LiveStream.destination(text) {
                case .folder(let folder): folders.append(folder)
                case .server(let push): servers.append(push)
                }
            } catch let error as ReelError { throw UsageError(error.message) }
        }
        guard !folders.isEmpty else {
            if let option = ["--live-segment", "--live-keep", "--live-part"].first(where: { arguments.value($0) != nil })
                ?? (arguments.has("--low-latency") ? "--low-latency" : nil) {
                throw UsageError("\(option) sets up an HLS stream: add --live DIR")
            }
            return ([], servers)
        }
        let lowLatency = arguments.has("--low-latency") || arguments.value("--live-part") != nil
        let duration = try arguments.number("--live-segment", in: LiveStream.segmentDurationRange)
            ?? (lowLatency ? LiveStream.defaultLowLatencySegmentDuration : LiveStream.defaultSegmentDuration)
        var window: Int? = LiveStream.defaultWindow
        if let keep = arguments.value("--live-keep") {
            if keep == "all" {
                window = nil
            } else {
                window = try arguments.integer("--live-keep", in: LiveStream.windowRange)
            }
        }
        let part = try arguments.number("--live-part", in: LiveStream.partDurationRange)
            ?? (arguments.has("--low-latency") ? LiveStream.defaultPartDuration : nil)
        let streams = folders.map { LiveStream(folder: $0, segmentDuration: duration, window: window, partDuration: part) }
        do {
            try streams.first?.validate()
        } catch let error as ReelError { throw UsageError(error.message) }
        return (streams, servers)
    }

    static func checkMovieOutput(_ output: String, command: String) throws {
        guard output.lowercased().hasSuffix(".mov") else {
            throw UsageError("\(command): output \(output) must end in .mov (Reel writes QuickTime movies)")
        }
    }

    static func fragmentInterval(_ arguments: ParsedArguments) throws -> Double {
        if let text = arguments.value("--fragment-interval"), NumberText.decimal(text) == 0 { return 0 }
        return try arguments.number("--fragment-interval", in: RecordingConfiguration.fragmentIntervalRange)
            ?? RecordingConfiguration.defaultFragmentInterval
    }

    static func stillQuality(_ arguments: ParsedArguments) throws -> Int {
        try arguments.integer("--still-quality", in: StillRequest.qualityRange) ?? StillRequest.defaultQuality
    }

    private static func source(_ text: String?, default makeDefault: () -> DeviceSpec) throws -> DeviceSpec? {
        guard let text else { return makeDefault() }
        if text == "none" { return nil }
        return try DeviceSpec(parsing: text)
    }
}
