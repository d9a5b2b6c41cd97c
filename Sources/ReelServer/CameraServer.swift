import Glibc
import Reel
import SystemSupport

/// `reel serve` as a library: the camera (CameraService) behind the HTTP API and page (APIRoutes) on a
/// libmicrohttpd server. Loopback needs no token; any other address does (`token`, or one generated and
/// returned by `start`).
public final class CameraServer: Sendable {
    public struct Options: Sendable {
        public var listen: String
        public var recordings: String
        public var token: String?
        public var video: String?
        public var audio: String?
        /// Video inputs after the first, composed (starting with `layout`, default pip), and sound inputs after
        /// the first, mixed or recorded as tracks of their own (`audioTracks`).
        public var moreVideo: [String] = []
        public var layout: String?
        public var moreAudio: [String] = []
        public var audioTracks: AudioTrackMode = .mix
        public var preset: String
        /// Start the camera at once (the page can start it too).
        public var startsCamera: Bool
        /// A folder another Reel writes HLS to (`reel record --live DIR --low-latency`), served at /live/ with
        /// blocking playlist reloads.
        public var liveFolder: String?
        /// The camera itself as Low-Latency HLS at /live/ (encoders of its own while the camera runs).
        public var streamsCamera: Bool
        /// Servers the camera is pushed to (srt://, rtmp://: `--live-push`), from the same encoders.
        public var livePushes: [String] = []
        /// Alarms the camera is watched for (`--alarm`): events on /api/events, those on in /api/status.
        public var alarms: [AlarmRule] = []
        /// `--replay-buffer S` (and `--replay-buffer-size`): the camera's last seconds, saved by POST /api/replay.
        public var replaySeconds: Double?
        public var replayBytes = ReplayBuffer.defaultMaxBytes
        /// `--trigger`: movies of the camera around events, into the recordings folder (event-….mov).
        public var triggers: TriggeredRecording?

        /// The capture and movie quality when none is given: small enough for any machine to serve a preview
        /// beside the recording.
        public static let defaultPreset = "640x480"
        public static let defaultRecordings = "recordings"

        public init(listen: String = ListenAddress.defaultValue, recordings: String = Options.defaultRecordings, token: String? = nil,
                    video: String? = DeviceDiscovery.defaultVideo().description,
                    audio: String? = DeviceDiscovery.defaultAudio().description, preset: String = Options.defaultPreset,
                    startsCamera: Bool = true, liveFolder: String? = nil, streamsCamera: Bool = false) {
            self.listen = listen
            self.recordings = recordings
            self.token = token
            self.video = video
            self.audio = audio
            self.preset = preset
            self.startsCamera = startsCamera
            self.liveFolder = liveFolder
            self.streamsCamera = streamsCamera
        }
    }

    /// What a started server serves: its URL (with the token to open it once, when there is one).
    public struct Started: Sendable {
        public let url: String
        public let port: Int
        public let token: String?
        public let recordings: String
    }

    private let server: HTTPServer
    private let camera: CameraService
    private let live: LiveOrigin?
    private let routes: APIRoutes
    private let options: Options
    private let address: ListenAddress
    private let token: String?

    /// Checks the options (an unusable address, folder or preset is `ReelError.invalidInput`).
    public convenience init(_ options: Options) throws {
        try self.init(options, limits: HTTPServer.Limits())
    }

    /// With other connection bounds (tests use short timeouts and few connections).
    init(_ options: Options, limits: HTTPServer.Limits) throws {
        address = try ListenAddress(parsing: options.listen)
        guard PresetLibrary.builtInNames.contains(options.preset) else {
            throw ReelError.invalidInput("unknown preset '\(options.preset)': use one of \(PresetLibrary.builtInNames.joined(separator: ", "))")
        }
        if let token = options.token, token.count < 16 || !token.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw ReelError.invalidInput("--token: use at least 16 letters, digits, '-' or '_'")
        }
        // Beyond loopback, a token is a must: generate one when none was given.
        token = options.token ?? (address.isLoopback ? nil : CameraServer.randomToken())
        let folder = try RecordingsFolder(path: options.recordings)
        if options.streamsCamera && options.liveFolder != nil {
            throw ReelError.invalidInput("--live and --live-folder both serve /live/: choose one")
        }
        let pushes = try options.livePushes.map { text -> LivePush in
            guard case .server(let push) = try LiveStream.destination(text) else {
                throw ReelError.invalidInput("--live-push \(text): give a server (srt://HOST:PORT or rtmp://HOST/APP/KEY)")
            }
            return push
        }
        try LivePush.check(pushes, videoCodec: try PresetLibrary.preset(named: options.preset).video.codec)
        let cameraStream = options.streamsCamera || !pushes.isEmpty ? try CameraLiveStream(writesHLS: options.streamsCamera, pushes: pushes) : nil
        camera = CameraService(folder: folder, inputs: .init(video: options.video, audio: options.audio, preset: options.preset,
                                                                moreVideo: options.moreVideo.isEmpty ? nil : options.moreVideo,
                                                                layout: options.layout, moreAudio: options.moreAudio.isEmpty ? nil : options.moreAudio,
                                                                audioTracks: options.audioTracks == .mix ? nil : options.audioTracks.rawValue),
                               liveStream: cameraStream, alarms: options.alarms,
                               keeping: .init(replaySeconds: options.replaySeconds, replayBytes: options.replayBytes, triggers: options.triggers))
        do {
            let camera = self.camera
            live = try (options.liveFolder ?? (options.streamsCamera ? cameraStream?.folder : nil)).map { folder in
                try LiveOrigin(folder: folder) { playable in
                    cameraStream?.setPlayable(playable)
                    camera.liveStreamChanged()
                }
            }
        } catch {
            cameraStream?.remove()
            throw error
        }
        let routes = APIRoutes(camera: camera, live: live)
        self.routes = routes
        server = HTTPServer(address: address, limits: limits) { request in routes.handle(request) }
        self.options = options
    }

    /// The folder the camera's stream is written to (`streamsCamera`), for the tests to see it go.
    var liveFolderForTests: String? { camera.liveStream?.folder }

    /// Binds, starts the camera (unless told not to) and serves.
    public func start() throws -> Started {
        try server.start()
        live?.start()
        routes.setPolicy(AccessPolicy(token: token, address: address, port: server.port))
        if options.startsCamera { try camera.startSession() }
        let host = ListenAddress.hostHeader(address.host, family: address.family, port: server.port)
        return Started(url: "http://\(host)/" + (token.map { "?token=\($0)" } ?? ""), port: server.port, token: token,
                       recordings: camera.folder.path)
    }

    /// Finalizes what is being recorded, ends every stream and stops serving.
    public func stop() {
        routes.close()  // API requests under way are answered; no more are taken
        camera.shutDown()
        camera.thumbnails.close()
        live?.stop()  // held requests answer at once, so the server's connections can end
        server.stop()
        camera.liveStream?.remove()
    }

    private static func randomToken() -> String {
        // The system's generator (getrandom(2) on Linux): a failed or short read of /dev/urandom used to leave
        // zeros in the token.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
