import CLinuxCapture
import FFmpegCore
import FoundationEssentials
import Glibc

/// How to open a DeviceSpec with libavdevice/libavformat for a given preset: which input format, which URL,
/// and which options (the user's, plus what the preset implies: size, rate, sample rate).
struct InputRecipe: Equatable {
    var formatName: String?
    var url: String
    var options: [(key: String, value: String)]

    static func == (lhs: InputRecipe, rhs: InputRecipe) -> Bool {
        lhs.formatName == rhs.formatName && lhs.url == rhs.url
            && lhs.options.map { "\($0.key)=\($0.value)" } == rhs.options.map { "\($0.key)=\($0.value)" }
    }

    enum Role {
        case video, audio
        var mediaType: MediaType { self == .video ? .video : .audio }
    }

    static func make(for spec: DeviceSpec, role: Role, preset: Preset,
                     cameraModes: (String) -> [VideoMode] = DeviceDiscovery.modes(of:)) -> InputRecipe {
        var options = spec.options.filter { !DeviceSpec.ownOptions.contains($0.key) }.map { (key: $0.key, value: $0.value) }
        func setDefault(_ key: String, _ value: String) {
            if !options.contains(where: { $0.key == key }) { options.append((key, value)) }
        }
        let video = preset.video
        let fps = formatRate(video.fps)
        switch spec.kind {
        case .file:
            return InputRecipe(formatName: nil, url: spec.target, options: options)
        case .lavfi:
            var graph = spec.target
            let isBareSource = !graph.contains("=") && !graph.contains(",") && !graph.contains(";")
            if isBareSource {
                switch role {
                case .video: graph += "=size=\(video.width)x\(video.height):rate=\(fps)"
                case .audio:
                    graph += graph == "sine" ? "=frequency=440:sample_rate=\(preset.audio.sampleRate)"
                                             : "=sample_rate=\(preset.audio.sampleRate)"
                }
            }
            // lavfi runs as fast as it is read; the realtime filters pace it like a device.
            if spec.isPaced { graph += role == .video ? ",realtime" : ",arealtime" }
            return InputRecipe(formatName: "lavfi", url: graph, options: options)
        case .v4l2:
            let hasUserMode = options.contains { ["video_size", "input_format", "framerate"].contains($0.key) }
            if !hasUserMode, let mode = VideoModeSelection.choose(
                from: cameraModes(spec.target), width: video.width, height: video.height, fps: video.fps,
                policy: video.sizePolicy) {
                setDefault("input_format", mode.ffmpegInputFormat!)
                setDefault("video_size", "\(mode.width)x\(mode.height)")
                setDefault("framerate", formatRate(mode.fps > 0 ? min(mode.fps, video.fps) : video.fps))
            }
            return InputRecipe(formatName: "v4l2", url: spec.target, options: options)
        case .x11grab:
            setDefault("framerate", fps)
            return InputRecipe(formatName: "x11grab", url: spec.target, options: options)
        case .alsa, .pulse:
            setDefault("sample_rate", String(preset.audio.sampleRate))
            setDefault("channels", String(preset.audio.channels))
            return InputRecipe(formatName: spec.kind.rawValue, url: spec.target, options: options)
        }
    }

    static func formatRate(_ fps: Double) -> String {
        fps == fps.rounded() ? String(Int(fps)) : String(fps)
    }

    /// libavdevice (and with it alsa-lib) is loaded on first use; alsa-lib must then be told not to print
    /// its own lines on stderr, as Reel reports errors itself.
    private static let devicesPrepared: Void = {
        FFmpegLibrary.ensureDevicesRegistered()
        reel_silence_alsa_errors()
    }()

    /// Opens the input as a source of one stream per role (a lavfi graph is read directly, without
    /// libavdevice); problems a user can fix come as `ReelError.invalidInput` saying what to check. With
    /// `missingRolesAllowed`, a role the input has no stream for is left out (a transcode of an audio file).
    func openSource(spec: DeviceSpec, roles: [Role], interrupt: InterruptFlag, missingRolesAllowed: Bool = false) throws -> FrameSource {
        func missing(_ role: Role) -> ReelError {
            ReelError.invalidInput("\(spec) has no \(role == .video ? "video" : "audio") stream")
        }
        if formatName == "lavfi" {
            guard options.isEmpty else {
                throw ReelError.invalidInput(
                    "\(spec): lavfi sources take no options but realtime; give filter options in the graph (e.g. lavfi:testsrc2=size=640x480)")
            }
            let graph = try withHint(spec) {
                try FilterGraphSource(description: url, pixelFormats: roles == [.video] ? [.yuv420p] : [])
            }
            if let role = roles.first(where: { $0.mediaType != graph.mediaType }) { throw missing(role) }
            return graph
        }
        if roles == [.video] && V4L2FrameSource.canOpen(self) {
            // A camera in a mode Reel negotiated: read with the kernel's streaming I/O, no libavdevice.
            return try V4L2FrameSource(recipe: self, spec: spec, interrupt: interrupt)
        }
        let input = try open(spec: spec, interrupt: interrupt)
        let indexes = try roles.compactMap { role -> Int? in
            guard let stream = input.bestStream(of: role.mediaType) else {
                if missingRolesAllowed { return nil }
                throw missing(role)
            }
            return stream.index
        }
        guard !indexes.isEmpty else {
            throw ReelError.invalidInput("\(spec.target) has neither video nor audio to transcode")
        }
        do {
            return try DecodingFrameSource(input: input, streamIndexes: indexes)
        } catch {
            throw ReelError.invalidInput("cannot decode \(spec): \(error)")
        }
    }

    /// Opens the input, turning FFmpeg's failure into a message that says what to check.
    private func open(spec: DeviceSpec, interrupt: InterruptFlag) throws -> InputContext {
        if formatName != nil { _ = InputRecipe.devicesPrepared }
        return try withHint(spec) {
            // x11grab describes its stream fully when opened (raw pictures of the screen's size and format):
            // probing it would read and throw away frames at the screen's rate, a third of a second.
            try InputContext(url: url, formatName: formatName, options: options, interrupt: interrupt,
                             probeStreams: spec.kind != .x11grab)
        }
    }

    /// What to check when a camera cannot be opened (libavdevice's path and Reel's own V4L2 reader).
    static let cameraHint = "check that the camera is connected and not in use (reel devices lists cameras)"

    private func withHint<Value>(_ spec: DeviceSpec, _ open: () throws -> Value) throws -> Value {
        do {
            return try open()
        } catch let error as FFmpegError {
            let hint: String
            switch spec.kind {
            case .file: hint = "check the path and that FFmpeg can read the file"
            case .v4l2: hint = InputRecipe.cameraHint
            case .alsa: hint = "check the ALSA device name (reel devices lists capture devices; arecord -L too)"
            case .pulse: hint = "check that a PulseAudio server is running and the source exists"
            case .x11grab: hint = "check that the X display is running and DISPLAY access is allowed"
            case .lavfi: hint = "check the lavfi filter graph"
            }
            // What a caller may branch on: a device or file that is not there, a device another program holds.
            let kind: ReelError.Kind = switch error.posixCode {
            case ENOENT, ENODEV, ENXIO: .deviceNotFound
            case EBUSY: .deviceBusy
            default: .invalidInput
            }
            if spec.kind == .file {
                throw ReelError(kind, "cannot read \(spec): \(error.inputProblem); \(hint)")
            }
            throw ReelError(kind, "cannot open \(spec): \(error.message) (\(error.call)); \(hint)")
        }
    }
}
