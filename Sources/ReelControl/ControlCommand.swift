import Reel

/// A command for a running session, as the control socket, `reel ctl` and the HTTP service take it:
/// `["switch-video", "v4l2:/dev/video1"]`. Pure parsing, unit-tested in ControlProtocolTests.
public enum ControlCommand: Sendable, Equatable {
    case status
    /// The sound's latest levels (AudioLevels), or null without sound.
    case levels
    case stop
    case pause
    case resume
    /// The next picture to this file (.jpg or .png).
    case photo(path: String)
    /// nil: black pictures or silence.
    case switchVideo(DeviceSpec?)
    /// One of several composed video inputs (from 1) switched.
    case switchVideoInput(Int, DeviceSpec?)
    /// The composed picture's layout: a built-in name or a layout file (relative: beside the recording).
    case layout(String)
    case switchAudio(DeviceSpec?)
    case cameraControl([CameraControlSetting])
    /// Pushes the running movie to a server from its next picture (srt://, rtmp://), as `--live` at the start.
    case livePush(LivePush)
    /// Streams the running movie as HLS into a folder (relative: beside the recording) from its next picture.
    case liveFolder(String)
    /// The replay buffer's last seconds (nil: all it holds) to a movie (relative: beside the recording).
    case saveReplay(path: String, seconds: Double?)
    /// Events from now on: progress once a second, levels ten times a second, segment and live events, the end.
    case subscribe

    /// Every command with its arguments, for help texts and error messages.
    public static let usage = [
        "status", "levels", "stop", "pause", "resume", "photo FILE.jpg|png", "switch-video [N] SPEC|none", "switch-audio SPEC|none", "layout NAME|FILE.json",
        "camera-control NAME=VALUE ...", "live DIR|srt://HOST:PORT|rtmp://HOST/APP/KEY", "live-push srt://HOST:PORT|rtmp://HOST/APP/KEY",
        "save-replay FILE.mov [SECONDS]", "subscribe",
    ]

    /// Parses `[name, arguments...]`; throws `ReelError.invalidInput` saying what is wrong and what is expected.
    public init(parsing words: [String]) throws {
        guard let name = words.first else {
            throw ReelError.invalidInput("empty command: use one of \(ControlCommand.usage.joined(separator: ", "))")
        }
        let arguments = Array(words.dropFirst())
        func none() throws {
            guard arguments.isEmpty else { throw ReelError.invalidInput("\(name) takes no arguments") }
        }
        func one(_ what: String) throws -> String {
            guard arguments.count == 1, !arguments[0].isEmpty else { throw ReelError.invalidInput("\(name) takes one argument: \(name) \(what)") }
            return arguments[0]
        }
        func source(_ text: String) throws -> DeviceSpec? { text == "none" ? nil : try DeviceSpec(parsing: text) }
        switch name {
        case "status": try none(); self = .status
        case "levels": try none(); self = .levels
        case "stop": try none(); self = .stop
        case "pause": try none(); self = .pause
        case "resume": try none(); self = .resume
        case "subscribe": try none(); self = .subscribe
        case "photo":
            let path = try one("FILE.jpg|png")
            guard StillRequest(path: path).codec != nil else { throw ReelError.invalidInput("photo \(path): use a .jpg, .jpeg or .png name") }
            self = .photo(path: path)
        case "switch-video" where arguments.count == 2:
            guard let input = Int(arguments[0]), (1...VideoLayout.maximumInputs).contains(input) else {
                throw ReelError.invalidInput("switch-video N SPEC|none: N is a composed input's number, 1 to \(VideoLayout.maximumInputs), not '\(arguments[0])'")
            }
            self = .switchVideoInput(input, try source(arguments[1]))
        case "switch-video": self = .switchVideo(try source(try one("[N] SPEC|none")))
        case "layout": self = .layout(try one("NAME|FILE.json (pip, side-by-side, grid, only:N)"))
        case "switch-audio": self = .switchAudio(try source(try one("SPEC|none")))
        case "camera-control":
            guard !arguments.isEmpty else { throw ReelError.invalidInput("camera-control takes NAME=VALUE settings, e.g. camera-control torch=on") }
            self = .cameraControl(try arguments.map { text in
                guard let setting = CameraControlSetting(parsing: text) else {
                    throw ReelError.invalidInput("camera-control '\(text)' is not NAME=VALUE (reel devices lists a camera's controls)")
                }
                return setting
            })
        case "live":
            switch try LiveStream.destination(try one("DIR|srt://HOST:PORT|rtmp://HOST/APP/KEY")) {
            case .folder(let folder): self = .liveFolder(folder)
            case .server(let push): self = .livePush(push)
            }
        case "save-replay":
            guard (1...2).contains(arguments.count), !arguments[0].isEmpty else {
                throw ReelError.invalidInput("save-replay takes a movie name and, if you like, seconds: save-replay FILE.mov [SECONDS]")
            }
            guard arguments[0].lowercased().hasSuffix(".mov") else {
                throw ReelError.invalidInput("save-replay \(arguments[0]): give the movie a name ending in .mov")
            }
            var seconds: Double? = nil
            if arguments.count == 2 {
                guard let value = NumberText.decimal(arguments[1]), value > 0, value.isFinite else {
                    throw ReelError.invalidInput("save-replay: '\(arguments[1])' is not a number of seconds above 0")
                }
                seconds = value
            }
            self = .saveReplay(path: arguments[0], seconds: seconds)
        case "live-push":
            let url = try one("srt://HOST:PORT|rtmp://HOST/APP/KEY")
            guard case .server(let push) = try LiveStream.destination(url) else {
                throw ReelError.invalidInput("live-push \(url): give a server, srt://HOST:PORT or rtmp://HOST/APP/KEY (an HLS folder: live DIR)")
            }
            self = .livePush(push)
        default:
            throw ReelError.invalidInput("unknown command '\(name)': use one of \(ControlCommand.usage.joined(separator: ", "))")
        }
    }
}
