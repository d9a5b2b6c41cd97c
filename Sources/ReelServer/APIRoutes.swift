import FoundationEssentials
import Glibc
import Reel
import SystemSupport

/// Every route of `reel serve` (see the README's "Serving the camera"): the page, the JSON API, the
/// recordings, the events and the preview. Requests pass the AccessPolicy first; a bad request is a 4xx with
/// `{"error": ...}` that says what to change, never a crash.
///
/// `handle` runs on the server's polling thread and never blocks it: the page, downloads and the live stream
/// are answered there, and the API (which waits on the camera: a photo, a movie finalized, a device opened) is
/// answered from a small work pool, its connection parked meanwhile. A full pool is a 503 at once.
final class APIRoutes: Sendable {
    let camera: CameraService
    /// The HLS stream served at /live/ (`--live-folder`), if any.
    let live: LiveOrigin?
    private let policy: Locked<AccessPolicy?> = Locked(nil)
    private let work = WorkPool(name: "reel.serve.api", threads: APIRoutes.workThreads, queueLimit: APIRoutes.queuedRequests)

    /// API requests answered at once, and queued beyond them before the server says it is busy.
    static let workThreads = 4
    static let queuedRequests = 32

    init(camera: CameraService, live: LiveOrigin? = nil) {
        self.camera = camera
        self.live = live
    }

    func setPolicy(_ policy: AccessPolicy) { self.policy.withLock { $0 = policy } }

    /// Answers what was asked already and takes no more API requests (the server is stopping).
    func close() { work.close() }

    func handle(_ request: HTTPRequest) -> HTTPAnswer {
        guard let policy = policy.withLock({ $0 }) else { return .now(.error(503, "the server is starting")) }
        // Opening /?token=TOKEN once sets the cookie the page's requests then carry.
        if request.path == "/", let token = request.query("token"), let expected = policy.token {
            guard AccessPolicy.constantTimeEqual(token, expected) else { return .now(.error(401, "wrong token")) }
            return .now(HTTPResponse(status: 303, headers: [
                ("Location", "/"),
                ("Set-Cookie", "\(AccessPolicy.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"),
            ], body: .bytes([])))
        }
        switch policy.check(method: request.method, header: request.header, cookie: request.cookie) {
        case .allowed: break
        case .unauthorized(let why): return .now(.error(401, why))
        case .forbidden(let why): return .now(.error(403, why))
        }
        let method = request.method, path = request.path
        if method == "GET", let file = WebPage.file(at: path) {
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", file.contentType), ("Content-Security-Policy", WebPage.contentSecurityPolicy)],
                                     body: .bytes(file.bytes)))
        }
        if path.hasPrefix("/live/") {
            guard let live else { return .now(.error(404, "no live stream is served: start reel serve with --live-folder DIR")) }
            guard method == "GET" || method == "HEAD" else { return .now(.error(405, "the live stream is read with GET")) }
            return live.respond(to: String(path.dropFirst("/live/".count)), query: request.query)
        }
        if path.hasPrefix("/recordings/") {
            let name = String(path.dropFirst("/recordings/".count))
            guard method == "GET" || method == "HEAD" else { return .now(.error(405, "recordings are read with GET; delete with DELETE /api/recordings/NAME")) }
            return .now(download(name, range: request.header("Range")))
        }
        let pending = PendingResponse()
        guard work.submit({ [self] in pending.answer(answer(request)) }) else {
            return .now(.error(503, "the server is busy: \(APIRoutes.workThreads + APIRoutes.queuedRequests) requests are being answered; try again"))
        }
        return .later(pending)
    }

    /// An API request's response, on the work pool.
    @available(*, noasync)
    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch let error as ReelError {
            return .error(APIRoutes.status(for: error), error.message)
        } catch let error as BodyError {
            return .error(400, error.message)
        } catch {
            return .error(500, "\(error)")
        }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let method = request.method, path = request.path
        if path.hasPrefix("/api/recordings/") && method == "DELETE" {
            let name = String(path.dropFirst("/api/recordings/".count))
            do {
                try camera.folder.delete(name)
            } catch .invalidName {
                return .error(400, "'\(name)' is not a recording's name")
            } catch {
                return .error(404, "no recording named '\(name)'")
            }
            camera.events.publish("deleted", json: CameraService.json(["name": name]))
            return .json(["deleted": name])
        }
        if path.hasPrefix("/thumbnails/") {
            guard method == "GET" || method == "HEAD" else { return .error(405, "thumbnails are read with GET") }
            return camera.thumbnails.response(for: String(path.dropFirst("/thumbnails/".count)))
        }
        switch (method, path) {
        case ("GET", "/api/status"):
            return .json(camera.status())
        case ("GET", "/metrics"):
            return .text(camera.metricsText(), contentType: PrometheusText.contentType)
        case ("GET", "/api/devices"):
            return .json(DeviceListing.current())
        case ("GET", "/api/presets"):
            return .json(PresetLibrary.builtIn().map { PresetSummary($0) })
        case ("GET", "/api/recordings"):
            return .json(camera.recordings())
        case ("GET", "/api/events"):
            let first = Array("retry: 2000\nevent: state\ndata: \(CameraService.json(camera.status()))\n\n".utf8)
            guard let stream = camera.events.subscribe(first: first) else {
                return .error(503, "too many event streams are open (at most \(EventHub.maxSubscribers))")
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
        case ("GET", "/preview.mjpg"):
            guard let stream = camera.preview.view() else {
                return .error(503, "too many preview viewers (at most \(PreviewHub.maxViewers))")
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)")],
                                body: .stream(stream))
        case ("POST", "/api/session/start"):
            let body = try Body(request.body)
            let current = camera.status().inputs
            let preset = body.string("preset") ?? current.preset
            try APIRoutes.requireBuiltIn(preset)
            try camera.startSession(.init(video: body.device("video", default: current.video),
                                          audio: body.device("audio", default: current.audio), preset: preset))
            return .json(camera.status())
        case ("POST", "/api/session/stop"):
            let result = camera.stopSession()
            return .json(["stopReason": result?.stopReason.rawValue ?? "notRunning"])
        case ("POST", "/api/session/switch"):
            let body = try Body(request.body)
            try camera.switchInput(video: body.has("video") ? .some(body.device("video", default: nil)) : .none,
                                   audio: body.has("audio") ? .some(body.device("audio", default: nil)) : .none)
            return .json(camera.status())
        case ("POST", "/api/layout"):
            let body = try Body(request.body)
            guard let name = body.string("layout") else { throw ReelError.invalidInput("give the layout: {\"layout\": \"side-by-side\"}") }
            try camera.setLayout(name)
            return .json(camera.status())
        case ("POST", "/api/camera-control"):
            let body = try Body(request.body)
            try camera.setCameraControls(body.strings("settings"))
            return .json(camera.status())
        case ("POST", "/api/photo"):
            return .json(["name": try camera.photo()])
        case ("POST", "/api/replay"):
            let body = try Body(request.body)
            let seconds = try body.number("seconds")
            if let seconds, !(seconds > 0) { throw ReelError.invalidInput("seconds: give a number above 0, or none for everything held") }
            return .json(try camera.saveReplay(seconds: seconds))
        case ("POST", "/api/movie/start"):
            let body = try Body(request.body)
            if let preset = body.string("preset") { try APIRoutes.requireBuiltIn(preset) }
            let tiers = body.has("tiers") ? try body.strings("tiers") : []
            for tier in tiers { try APIRoutes.requireBuiltIn(tier) }
            let movie = CameraService.MovieRequest(preset: body.string("preset"), maxDuration: try body.number("maxDuration"),
                                                   maxSize: body.string("maxSize"), minFree: body.string("minFree"),
                                                   segmentDuration: try body.number("segmentDuration"), tiers: tiers)
            return .json(["name": try camera.startMovie(movie)])
        case ("POST", "/api/movie/stop"):
            return .json(try camera.stopMovie())
        case ("POST", "/api/movie/pause"):
            try camera.pauseMovie(true)
            return .json(camera.status())
        case ("POST", "/api/movie/resume"):
            try camera.pauseMovie(false)
            return .json(camera.status())
        case ("POST", "/api/shutter/press"):
            let body = try Body(request.body)
            let movie = CameraService.MovieRequest(maxDuration: try body.number("maxDuration") ?? APIRoutes.shutterCap)
            return .json(["name": try camera.startMovie(movie, press: true)])
        case ("POST", "/api/shutter/release"):
            return .json(try camera.release())
        default:
            if path.hasPrefix("/api/") || WebPage.file(at: path) != nil {
                return .error(405, "\(method) \(path) is not a route: see the README's list of routes")
            }
            return .error(404, "nothing at \(path)")
        }
    }

    /// The seeds' cap on a held shutter.
    static let shutterCap: Double = 60

    private static func requireBuiltIn(_ preset: String) throws {
        guard PresetLibrary.builtInNames.contains(preset) else {
            throw ReelError.invalidInput("unknown preset '\(preset)': use one of \(PresetLibrary.builtInNames.joined(separator: ", "))")
        }
    }

    private func download(_ name: String, range: String?) -> HTTPResponse {
        let opened: (descriptor: FileDescriptor, size: Int64)
        do {
            opened = try camera.folder.open(name)
        } catch .invalidName {
            return .error(400, "'\(name)' is not a recording's name")
        } catch {
            return .error(404, "no recording named '\(name)'")
        }
        let type = name.hasSuffix(".mov") ? "video/quicktime" : "image/jpeg"
        var headers = [("Content-Type", type), ("Accept-Ranges", "bytes")]
        switch ByteRange.parse(range, size: opened.size) {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: .file(opened.descriptor, offset: 0, length: opened.size))
        case .range(let range):
            headers.append(("Content-Range", "bytes \(range.start)-\(range.end)/\(opened.size)"))
            return HTTPResponse(status: 206, headers: headers,
                                body: .file(opened.descriptor, offset: range.start, length: range.length))
        case .unsatisfiable:
            var response = HTTPResponse.error(416, "the range is beyond the file's \(opened.size) bytes")
            response.headers.append(("Content-Range", "bytes */\(opened.size)"))
            return response
        }
    }

    static func status(for error: ReelError) -> Int {
        switch error.kind {
        case .invalidInput, .limitImpossible: return 400
        case .deviceNotFound: return 404
        case .deviceBusy, .outputExists: return 409
        case .diskFull: return 507
        case .ffmpeg, .runtime: return 500
        }
    }
}

/// A request's JSON object body (empty means `{}`).
struct Body {
    private let fields: [String: JSONValue]

    init(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else {
            fields = [:]
            return
        }
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw BodyError(message: "the request body must be a JSON object")
        }
        fields = object
    }

    func has(_ name: String) -> Bool { fields[name] != nil }

    func string(_ name: String) -> String? { fields[name]?.stringValue }

    func number(_ name: String) throws -> Double? {
        switch fields[name] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw BodyError(message: "\(name) must be a number")
        }
    }

    func strings(_ name: String) throws -> [String] {
        guard case .array(let list)? = fields[name] else { throw BodyError(message: "\(name) must be a list of strings") }
        return try list.map { value in
            guard let text = value.stringValue else { throw BodyError(message: "\(name) must be a list of strings") }
            return text
        }
    }

    /// A device spec; `"none"` or null leaves the track out.
    func device(_ name: String, default fallback: String?) -> String? {
        guard let value = fields[name] else { return fallback }
        guard let text = value.stringValue, text != "none" else { return nil }
        return text
    }
}

struct BodyError: Error {
    let message: String
}

struct PresetSummary: Codable, Sendable {
    let name: String
    let description: String
    let size: String
    let fps: Double

    init(_ preset: Preset) {
        name = preset.name
        description = preset.description
        size = preset.video.size
        fps = preset.video.fps
    }
}
