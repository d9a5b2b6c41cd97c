import FoundationEssentials
import Glibc
import SystemSupport
@_spi(ReelTools) import Reel
import ReelControl

/// `reel ctl SOCKET COMMAND [ARGS] [--json]`: drives a running `reel record --control SOCKET`.
enum CtlCommand {
    static let help = """
        usage: reel ctl SOCKET COMMAND [ARGS] [--json]
               reel ctl SOCKET watch [--json]

        Sends one command to a recording started with --control SOCKET and prints the reply:
          status                 state, inputs, outputs and progress
          levels                 the sound's levels per channel: peak, RMS, 20 s peak hold (dBFS), clipped samples
          stop                   stop and finalize (as Ctrl-C)
          pause | resume         leave a stretch out of the movies (no hole in their timelines)
          photo FILE.jpg|png     the next picture, while recording (relative to the recording's folder)
          switch-video SPEC|none switch the camera or screen (none: black pictures); e.g. lavfi:smptebars
          switch-video N SPEC|none
                                 switch composed video input N (from 1) alone
          layout NAME|FILE.json  the composed picture's layout from the next frame: pip, side-by-side, grid,
                                 only:N, or a layout file (relative to the recording's folder)
          switch-audio SPEC|none switch the microphone (none: silence)
          camera-control N=V ... change a V4L2 camera's controls (torch=on, focus=manual:0.4 ...)
          live DIR|URL           stream the movie as HLS into DIR (relative: beside the recording; 6 s segments)
                                 or push it to srt://HOST:PORT or rtmp://HOST/APP/KEY, from its next picture
          live-push URL          the same, for a server only
          save-replay FILE.mov [SECONDS]
                                 the replay buffer's last SECONDS (default: all it holds) to a movie, while it
                                 keeps filling (relative to the recording's folder; needs --replay-buffer)
          watch                  print events (progress each second, segments, the end) until the recording ends
        With --json the reply's data (or each event) is printed as JSON; watch --json also prints the
        levels events (ten a second).

        exit codes: 0 done, 1 the recording refused the command (the reason is printed), 2 bad usage or no
                    recording listens on SOCKET
        """

    /// How long a reply may take: a switch waits for the new device's first frame (up to 10 s).
    static let replyTimeout: Int32 = 30_000

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        let socket: FileDescriptor
        let words: [String]
        do {
            parsed = try ParsedArguments(arguments, command: "ctl", specification: .init(valueOptions: [], flagOptions: ["--json"]))
            guard parsed.positionals.count >= 2 else { throw UsageError("ctl: expected SOCKET and a COMMAND (reel ctl --help)") }
            words = Array(parsed.positionals.dropFirst())
            if words != ["watch"] {
                do { _ = try ControlCommand(parsing: words) } catch let error as ReelError { throw UsageError("ctl: \(error.message)") }
            }
            socket = try UnixSocket.connect(to: parsed.positionals[0])
        } catch let error as ReelError where error.kind == .deviceNotFound {
            Terminal.printError(error.message)
            return .usage
        } catch {
            return .reporting(error)
        }
        let json = parsed.has("--json")
        let watching = words == ["watch"]
        let request = ControlMessages.json(["command": watching ? ["subscribe"] : words]) ?? "{}"
        guard write(all: Array((request.dropLast() + ",\"request_id\":1}\n").utf8), to: socket) else {
            Terminal.printError("the recording closed the control socket")
            return .failure
        }
        var reader = LineReader(socket: socket)
        while let line = reader.next(timeout: watching ? -1 : replyTimeout) {
            guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(line.utf8)) else { continue }
            if let event = envelope.event {
                guard watching, json || event != "levels" else { continue }
                Terminal.writeOutput((json ? line : describe(event: event, line)) + "\n")
                if event == "finished" { return .success }
                continue
            }
            guard envelope.request_id == 1 || envelope.request_id == nil else { continue }
            let error = envelope.error ?? "no reply"
            guard error == "success" else {
                Terminal.printError(error)
                return .failure
            }
            if watching { continue }
            Terminal.writeOutput((json ? pretty(envelope.data) : describe(reply: envelope.data)) + "\n")
            return .success
        }
        if watching { return .success }
        Terminal.printError("no reply from the recording within \(replyTimeout / 1000) s")
        return .failure
    }

    /// A reply or event line, as far as ctl needs to read it.
    private struct Envelope: Decodable {
        var event: String?
        var request_id: Int?
        var error: String?
        var data: JSONDocument?
    }

    private static func write(all bytes: [UInt8], to socket: FileDescriptor) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket.raw, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private static func pretty(_ value: JSONDocument?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let value, let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else { return "null" }
        return text
    }

    /// A saved replay as a person reads it: where, what span of the recording, how big, how fast.
    static func text(of save: ReplaySave) -> String {
        "\(save.path): \(String(printf: "%.2f", save.seconds)) s (\(String(printf: "%.2f", save.start))-\(String(printf: "%.2f", save.end)) s of the recording), "
            + "\(save.videoFrames) frames, \(ByteCount.format(save.bytes)), written in \(Int(save.milliseconds.rounded())) ms"
    }

    /// A reply's data as a person reads it: a status, a photo's path, or "ok".
    static func describe(reply data: JSONDocument?) -> String {
        if case .null? = data { return "no sound is being recorded" }
        guard let data, let encoded = try? JSONEncoder().encode(data) else { return "ok" }
        if let levels = try? JSONDecoder().decode(AudioLevels.self, from: encoded) { return LevelText.lines(levels).joined(separator: "\n") }
        if let save = try? JSONDecoder().decode(ReplaySave.self, from: encoded) { return text(of: save) }
        if let photo = try? JSONDecoder().decode([String: String].self, from: encoded), let path = photo["path"] { return path }
        if let push = try? JSONDecoder().decode([String: String].self, from: encoded), let url = push["pushing"] {
            return "pushing to \(url) from the next picture"
        }
        if let stream = try? JSONDecoder().decode([String: String].self, from: encoded), let playlist = stream["streaming"] {
            return "streaming HLS to \(playlist) from the next picture"
        }
        guard let status = try? JSONDecoder().decode(SessionStatus.self, from: encoded) else { return "ok" }
        var lines = [status.state.rawValue + (status.progress.map(progressText) ?? "")]
        if let inputs = status.videoInputs {
            lines.append("video: " + inputs.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: ", ")
                         + (status.layout.map { " (layout \($0))" } ?? ""))
        } else {
            lines.append("video: \(status.video ?? "none")")
        }
        lines.append("audio: \(status.audio ?? "none")")
        for output in status.outputs { lines.append("output: \(output)") }
        for push in status.livePushes ?? [] { lines.append("live: " + push.text.dropFirst("live stream ".count)) }
        if let replay = status.replay {
            lines.append("replay buffer: \(String(printf: "%.1f", replay.seconds)) s held, \(ByteCount.format(Int64(replay.bytes)))")
        }
        return lines.joined(separator: "\n")
    }

    private static func progressText(_ progress: RecordingProgress) -> String {
        var text = "  \(StatusLine.clock(progress.mediaDuration))  \(ByteCount.format(progress.bytes))  \(progress.videoFrames) frames"
        text += "  dropped \(progress.droppedFrames)"
        if let segment = progress.segment { text += "  segment \(segment)" }
        return text
    }

    private struct SegmentStart: Decodable {
        var output: String
        var index: Int
    }

    /// An event line as a person reads it.
    static func describe(event: String, _ line: String) -> String {
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        switch event {
        case "progress":
            return (try? decoder.decode(RecordingProgress.self, from: data)).map { "progress" + progressText($0) } ?? event
        case "segmentStarted":
            return (try? decoder.decode(SegmentStart.self, from: data)).map { "segment \($0.index) started: \($0.output)" } ?? event
        case "segmentFinished":
            return (try? decoder.decode(SegmentResult.self, from: data))
                .map { "segment \($0.index) finished: \($0.output) " + String(printf: "%.2f s", $0.duration) } ?? event
        case "liveStopped":
            return (try? decoder.decode(LiveResult.self, from: data))
                .map { "live stream \($0.destination) stopped: \($0.error ?? "no error")" } ?? event
        case "liveConnected", "liveDisconnected", "liveReconnecting":
            return (try? decoder.decode(LiveConnection.self, from: data)).map(\.text) ?? event
        case "videoInputLost", "videoInputBack":
            return (try? decoder.decode(VideoInputChange.self, from: data)).map(RecordCommand.videoInputText) ?? event
        case "finished":
            return (try? decoder.decode(RecordingResult.self, from: data))
                .map { "finished (\($0.stopReason.rawValue)): \($0.output)" } ?? event
        default: return event
        }
    }
}

/// Any JSON value, read and written back as it came (for `--json`).
indirect enum JSONDocument: Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONDocument])
    case object([String: JSONDocument])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONDocument].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONDocument].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded() && abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// Lines from a socket, waiting with poll.
struct LineReader {
    let socket: FileDescriptor
    private var pending: [UInt8] = []

    init(socket: FileDescriptor) { self.socket = socket }

    /// The next line, or nil at the end of the stream or after `timeout` milliseconds (-1: no limit).
    mutating func next(timeout: Int32) -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var entry = pollfd(fd: socket.raw, events: Int16(POLLIN), revents: 0)
            guard let ready = try? SystemCall.retrying("poll", { poll(&entry, 1, timeout) }), ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = read(socket.raw, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
        }
    }
}
