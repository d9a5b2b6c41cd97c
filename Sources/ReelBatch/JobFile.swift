import Reel
import FoundationEssentials
import Glibc

/// Reads and validates a batch job file before anything runs:
/// `{"defaults": {...}, "jobs": [{"name": ..., "type": "record"|"transcode"|"grab"|"trim"|"join", ...}]}`.
/// Unknown keys, wrong types, missing fields, duplicate names or outputs are errors naming the job and field.
/// Relative paths are resolved against the job file's folder, so a job file works from any directory.
public enum JobFile {
    static let jobKeys: Set<String> = ["name", "type", "video", "audio", "input", "preset", "maxDuration", "maxSize",
                                       "minFree", "fragmentInterval", "deviceTimeout", "output", "still", "stillQuality",
                                       "orientation", "at", "controls", "tiers", "segmentDuration", "segmentSize",
                                       "keepSegments", "keepFree", "startAt", "control", "live", "alarms", "alarmExit",
                                       "replayBuffer", "replayBufferSize", "from", "to", "duration", "mode", "layout", "overlays", "filters", "audioTracks"]
    static let allowedByKind: [BatchJob.Kind: Set<String>] = [
        .record: ["name", "type", "video", "audio", "preset", "maxDuration", "maxSize", "minFree", "fragmentInterval",
                  "deviceTimeout", "output", "still", "stillQuality", "orientation", "controls", "tiers",
                  "segmentDuration", "segmentSize", "keepSegments", "keepFree", "startAt", "control", "live", "alarms", "alarmExit",
                  "replayBuffer", "replayBufferSize", "layout", "overlays", "filters", "audioTracks"],
        .transcode: ["name", "type", "input", "preset", "maxDuration", "maxSize", "minFree", "fragmentInterval", "output",
                     "still", "stillQuality", "tiers", "segmentDuration", "segmentSize", "keepSegments", "keepFree", "overlays", "filters"],
        .grab: ["name", "type", "input", "at", "output", "stillQuality"],
        .trim: ["name", "type", "input", "output", "from", "to", "duration", "mode"],
        .join: ["name", "type", "inputs", "output"],
    ]

    public static func load(path: String, date: Date = Date()) throws -> [BatchJob] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReelError.invalidInput("job file \(path) cannot be read: check the path")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try parse(data, source: path, baseFolder: folder, date: date)
    }

    public static func parse(_ data: Data, source: String, baseFolder: URL, date: Date = Date()) throws -> [BatchJob] {
        let root = try JSONFields.parse(data, source: source)
        try root.rejectUnknownKeys(allowed: ["defaults", "jobs"])
        var defaults: [String: JSONValue] = [:]
        if root.has("defaults") {
            let fields = try root.nested("defaults")
            try fields.rejectUnknownKeys(allowed: jobKeys.subtracting(["name"]))
            defaults = fields.object
        }
        guard case .array(let list)? = root.object["jobs"] else {
            throw ReelError.invalidInput("\(source): jobs: expected an array of job objects")
        }
        let day = LocalTime.format("%Y%m%d", date)
        var jobs: [BatchJob] = []
        jobs.reserveCapacity(list.count)
        let defaultSources = DefaultSources()
        let basePath = baseFolder.path
        var names: [String: Int] = [:]
        for (offset, value) in list.enumerated() {
            guard case .object(let own) = value else {
                throw ReelError.invalidInput("\(source): jobs[\(offset)]: expected a job object")
            }
            let label = own["name"]?.stringValue.map { "jobs.\($0)" } ?? "jobs[\(offset)]"
            // Defaults apply where they fit the job's type (a default preset is no error for a grab job).
            let kindName = (own["type"] ?? defaults["type"])?.stringValue ?? BatchJob.Kind.record.rawValue
            let fitting = BatchJob.Kind(rawValue: kindName).flatMap { allowedByKind[$0] } ?? jobKeys
            let applicable = defaults.filter { fitting.contains($0.key) }
            let fields = try JSONFields(.object(applicable.merging(own) { _, job in job }), path: label, source: source)
            let job = try parseJob(fields, index: offset + 1, baseFolder: basePath, day: day, now: date, defaults: defaultSources)
            if let first = names[job.name] {
                throw ReelError.invalidInput("\(source): \(label).name: '\(job.name)' is already used by jobs[\(first - 1)]")
            }
            names[job.name] = job.index
            jobs.append(job)
        }
        try checkOutputs(of: jobs, source: source)
        return jobs
    }

    /// No job writes a file another job writes or reads, or its own input (OutputPlan's rules, across the
    /// batch): with `--parallel` they would run at once, and in any order one would destroy the other's work.
    static func checkOutputs(of jobs: [BatchJob], source: String) throws {
        let plans = jobs.map(\.outputPlan)
        let folders = FolderFacts()
        for (job, plan) in zip(jobs, plans) {
            for name in plan.names {
                do {
                    try OutputPlan.checkPlace(name, foldersExist: false, folders: folders)
                } catch let error as ReelError {
                    throw ReelError(error.kind, "\(source): jobs.\(job.name).output: \(error.message)")
                }
            }
        }
        switch OutputCollisions.first(among: plans) {
        case .sameFile(let first, let second)?:
            let (one, other) = (jobs[first.plan], jobs[second.plan])
            throw ReelError.invalidInput("\(source): jobs.\(other.name).output: \(second.name.role) \(ErrorText.path(second.name.path)) would write the same file as \(first.name.role) \(ErrorText.path(first.name.path))\(one.index == other.index ? "" : " of job '\(one.name)'"): give each its own name")
        case .input(let output, let input, let inputOf)?:
            let (writer, reader) = (jobs[output.plan], jobs[inputOf])
            throw ReelError.invalidInput("\(source): jobs.\(writer.name).output: \(output.name.role) \(ErrorText.path(output.name.path)) would overwrite \(ErrorText.path(input)), the input of \(writer.index == reader.index ? "the job itself" : "job '\(reader.name)'"): give it another name")
        case nil:
            break
        }
    }

    /// The machine's default devices, looked up once per job file (not once per job).
    final class DefaultSources {
        lazy var video = DeviceDiscovery.defaultVideo()
        lazy var audio = DeviceDiscovery.defaultAudio()
    }

    private static func parseJob(_ fields: JSONFields, index: Int, baseFolder: String, day: String, now: Date,
                                 defaults: DefaultSources) throws -> BatchJob {
        let name = try fields.string("name")
        guard !name.contains("/") else { throw fields.fail("name", "must not contain '/' (it is used in file names)") }
        let kind: BatchJob.Kind = try fields.choice("type", default: .record)
        let allowed = allowedByKind[kind]!
        if let stray = fields.object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fields.fail(stray, "not a field of a \(kind.rawValue) job (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        let presetName = [.grab, .trim, .join].contains(kind) ? nil : (try fields.optionalString("preset") ?? PresetLibrary.defaultName)
        var preset: Preset? = nil
        if let presetName {
            do {
                let resolved = presetName.hasSuffix(".json") ? resolve(presetName, against: baseFolder) : presetName
                preset = try PresetLibrary.preset(named: resolved)
            } catch let error as ReelError {
                throw fields.fail("preset", error.description)
            }
        }
        /// A template's placeholders filled in; a path is then resolved against the job file's folder.
        func expand(_ key: String, in fields: JSONFields = fields, preset presetName: String? = presetName, isPath: Bool = true) throws -> String {
            let template = try fields.string(key)
            guard let text = fill(template, ["name": name, "preset": presetName ?? "", "index": String(index), "date": day]) else {
                let shown = isPath ? template : LivePush.hidingSecrets(template)
                throw fields.fail(key, "unknown placeholder in '\(shown)' (use {name}, {preset}, {index}, {date})")
            }
            return isPath ? resolve(text, against: baseFolder) : text
        }
        let output = try expand("output")
        let expectedExtensions = kind == .grab ? ["jpg", "jpeg", "png"] : ["mov"]
        guard expectedExtensions.contains(URL(fileURLWithPath: output, isDirectory: false).pathExtension.lowercased()) else {
            throw fields.fail("output", "\(output) must end in .\(expectedExtensions.joined(separator: " or ."))")
        }
        var limits = RecordingLimits()
        if fields.has("maxDuration") { limits.maxDuration = try fields.number("maxDuration", in: RecordingLimits.maxDurationRange) }
        if fields.has("maxSize") {
            limits.maxFileSize = try fields.byteCount("maxSize", in: RecordingLimits.smallestMaxFileSize...Int64.max / 2)
        }
        if fields.has("minFree") { limits.minFreeDiskSpace = try fields.byteCount("minFree", in: 0...Int64.max / 2) }
        var fragmentInterval = RecordingConfiguration.defaultFragmentInterval
        if fields.has("fragmentInterval") {
            let range = RecordingConfiguration.fragmentIntervalRange
            fragmentInterval = try fields.number("fragmentInterval", in: 0...range.upperBound)
            if fragmentInterval > 0 && !range.contains(fragmentInterval) {
                throw fields.fail("fragmentInterval", "use 0 (off) or at least \(range.lowerBound) seconds")
            }
        }
        let quality = try fields.optionalInteger("stillQuality", in: StillRequest.qualityRange) ?? StillRequest.defaultQuality
        var still: StillRequest? = nil
        if fields.has("still") {
            let path = try expand("still")
            still = StillRequest(path: path, quality: quality)
            guard still?.codec != nil else { throw fields.fail("still", "\(path) must end in .jpg, .jpeg or .png") }
        }
        func source(_ key: String) throws -> DeviceSpec? {
            guard fields.has(key) else { return nil }
            let text = try fields.string(key)
            if text == "none" { return nil }
            do {
                var spec = try DeviceSpec(parsing: text)
                if spec.kind == .file { spec.target = resolve(spec.target, against: baseFolder) }
                return spec
            } catch let error as ReelError {
                throw fields.fail(key, error.description)
            }
        }
        var job = BatchJob(index: index, name: name, kind: kind, output: output, video: nil, audio: nil, input: nil,
                           preset: preset, limits: limits, still: still,
                           orientation: try fields.choice("orientation", default: Orientation.landscapeRight),
                           at: 0, quality: quality, fragmentInterval: fragmentInterval,
                           deviceTimeout: fields.has("deviceTimeout") ? try fields.number("deviceTimeout", in: RecordingConfiguration.deviceTimeoutRange)
                                                                      : RecordingConfiguration.defaultDeviceTimeout)
        if fields.has("overlays") {
            job.overlays = try fields.strings("overlays").map { text in
                // An image's path is the job file's folder's, as every path in it.
                do { return try Overlay(parsing: text, relativeTo: baseFolder) } catch let error as ReelError { throw fields.fail("overlays", error.message) }
            }
        }
        if fields.has("filters") {
            job.pictureFilters = try fields.strings("filters").map { name in
                do { return try PictureFilterKind(parsing: name) } catch let error as ReelError { throw fields.fail("filters", error.message) }
            }
        }
        switch kind {
        case .record:
            /// A list of inputs (several video inputs composed, several sound inputs mixed; the first is input 1).
            func sources(_ key: String, most: Int) throws -> [DeviceSpec] {
                let specs = try fields.strings(key).map { text -> DeviceSpec in
                    do {
                        var spec = try DeviceSpec(parsing: text)
                        if spec.kind == .file { spec.target = resolve(spec.target, against: baseFolder) }
                        return spec
                    } catch let error as ReelError { throw fields.fail(key, error.description) }
                }
                guard (1...most).contains(specs.count) else { throw fields.fail(key, "a list of 1 to \(most) inputs, this one has \(specs.count)") }
                return specs
            }
            /// One spec (or `none`, or the default), or a list: its first and the rest.
            func inputs(_ key: String, most: Int, default fallback: DeviceSpec?) throws -> (DeviceSpec?, [DeviceSpec]) {
                guard case .array = fields.object[key] else { return (fields.has(key) ? try source(key) : fallback, []) }
                let specs = try sources(key, most: most)
                return (specs[0], Array(specs.dropFirst()))
            }
            (job.video, job.additionalVideo) = try inputs("video", most: VideoLayout.maximumInputs, default: defaults.video)
            if fields.has("layout") {
                let name = try fields.string("layout")
                do {
                    job.layout = try VideoLayout.named(name.hasSuffix(".json") ? resolve(name, against: baseFolder) : name,
                                                       inputs: 1 + job.additionalVideo.count)
                } catch let error as ReelError { throw fields.fail("layout", error.message) }
            }
            (job.audio, job.additionalAudio) = try inputs("audio", most: RecordingConfiguration.maximumAudioInputs, default: defaults.audio)
            if fields.has("audioTracks") {
                let mode = try fields.string("audioTracks")
                guard let chosen = AudioTrackMode(rawValue: mode) else { throw fields.fail("audioTracks", "'\(mode)': use \(AudioTrackMode.names)") }
                job.audioTracks = chosen
            }
            if job.video == nil && job.audio == nil { throw fields.fail("video", "a record job needs a video or an audio source") }
            if fields.has("controls") {
                job.cameraControls = try fields.strings("controls").map { text in
                    guard let setting = CameraControlSetting(parsing: text) else {
                        throw fields.fail("controls", "'\(text)' is not NAME=VALUE (reel devices lists a camera's controls)")
                    }
                    return setting
                }
            }
            if limits.maxDuration == nil && limits.maxFileSize == nil {
                throw fields.fail("maxDuration", "a record job needs maxDuration or maxSize: a batch runs unattended")
            }
        case .transcode, .grab, .trim:
            job.input = resolve(try fields.string("input"), against: baseFolder)
            if kind == .grab { job.at = try fields.has("at") ? fields.number("at", in: FrameGrabber.timeRange) : 0 }
            if kind == .trim { try parseTrim(fields, into: &job) }
        case .join:
            job.joinInputs = try fields.strings("inputs").map { resolve($0, against: baseFolder) }
            guard job.joinInputs.count >= 2 else { throw fields.fail("inputs", "a join job needs at least two movies to join") }
        }
        if fields.has("segmentDuration") || fields.has("segmentSize") || fields.has("keepSegments") || fields.has("keepFree") {
            // Segments are named with -001, -002 ... before the extension ({index} in a job's output is the job's).
            var segmentation = Segmentation()
            if fields.has("segmentDuration") { segmentation.duration = try fields.number("segmentDuration", in: Segmentation.durationRange) }
            if fields.has("segmentSize") { segmentation.size = try fields.byteCount("segmentSize", in: 1...Int64.max / 2) }
            segmentation.keep = try fields.optionalInteger("keepSegments", in: Segmentation.keepRange)
            if fields.has("keepFree") {
                if fields.has("minFree") { throw fields.fail("keepFree", "sets the free-space floor itself: give it or minFree, not both") }
                job.limits.minFreeDiskSpace = try fields.byteCount("keepFree", in: 1...Int64.max / 2)
                segmentation.deletesOldestForFreeSpace = true
            }
            guard segmentation.duration != nil || segmentation.size != nil else {
                throw fields.fail("segmentDuration", "keepSegments and keepFree need segments: add segmentDuration or segmentSize")
            }
            do {
                try segmentation.validate(pictureSize: preset.map { ($0.video.width, $0.video.height) })
            } catch let error as ReelError {
                throw fields.fail(fields.has("segmentSize") ? "segmentSize" : "segmentDuration", error.message)
            }
            job.segmentation = segmentation
        }
        if fields.has("control") { job.control = try expand("control") }
        if fields.has("alarms") {
            // As --alarm gives them: "silence", "silence:-50:5", "black:0.1:3" ...
            job.alarms = try fields.strings("alarms").map { text in
                do { return try AlarmRule(parsing: text) } catch let error as ReelError { throw fields.fail("alarms", error.message) }
            }
            if let kind = AlarmKind.allCases.first(where: { kind in job.alarms.filter { $0.kind == kind }.count > 1 }) {
                throw fields.fail("alarms", "\(kind.rawValue) is given twice: give each kind once")
            }
        }
        if fields.has("replayBuffer") {
            // As --replay-buffer S and --replay-buffer-size BYTES: saved with `reel ctl CONTROL save-replay`.
            job.replayBuffer = try fields.number("replayBuffer", in: ReplayBuffer.secondsRange)
            if fields.has("replayBufferSize") {
                let range = Int64(ReplayBuffer.maxBytesRange.lowerBound)...Int64(ReplayBuffer.maxBytesRange.upperBound)
                job.replayBufferSize = Int(try fields.byteCount("replayBufferSize", in: range))
            }
        } else if fields.has("replayBufferSize") {
            throw fields.fail("replayBufferSize", "bounds a replay buffer: add replayBuffer (seconds)")
        }
        if fields.has("alarmExit") {
            guard case .bool(let value)? = fields.object["alarmExit"] else { throw fields.fail("alarmExit", "expected true or false") }
            guard value == false || !job.alarms.isEmpty else { throw fields.fail("alarmExit", "needs alarms to watch") }
            job.alarmExit = value
        }
        if fields.has("startAt") {
            guard let duration = job.limits.maxDuration else {
                throw fields.fail("startAt", "a scheduled recording needs maxDuration (when it ends)")
            }
            let text = try fields.string("startAt")
            do {
                job.startAt = try JobSchedule.parse(text, now: now, duration: duration)
            } catch let error as ReelError {
                throw fields.fail("startAt", error.message)
            }
        }
        if fields.has("live") {
            // Live streams of the movie: {"folder": TEMPLATE, "segmentDuration": S, "keep": N | "all",
            // "partDuration": S} for HLS (with parts: Low-Latency HLS),
            // {"url": "srt://…" | "rtmp://…/{name}"} for a server.
            for stream in try fields.objects("live") {
                if stream.has("url") {
                    if let stray = stream.object.keys.sorted().first(where: { $0 != "url" }) {
                        throw stream.fail(stray, "not a field of a pushed live stream (allowed: url)")
                    }
                    let destination: LiveDestination
                    do {
                        destination = try LiveStream.destination(try expand("url", in: stream, isPath: false))
                    } catch let error as ReelError {
                        throw stream.fail("url", error.message)
                    }
                    guard case .server(let push) = destination else {
                        throw stream.fail("url", "not a server's address: push to srt://HOST:PORT or rtmp://HOST/APP/KEY (a folder goes in \"folder\")")
                    }
                    job.livePushes.append(push)
                    continue
                }
                if let stray = stream.object.keys.sorted().first(where: { !["folder", "segmentDuration", "keep", "partDuration"].contains($0) }) {
                    throw stream.fail(stray, "not a field of a live stream (allowed: folder, keep, partDuration, segmentDuration; or url alone)")
                }
                var live = LiveStream(folder: try expand("folder", in: stream))
                if stream.has("segmentDuration") {
                    live.segmentDuration = try stream.number("segmentDuration", in: LiveStream.segmentDurationRange)
                }
                if stream.has("keep") {
                    live.window = stream.object["keep"] == .string("all") ? nil : try stream.integer("keep", in: LiveStream.windowRange)
                }
                if stream.has("partDuration") {
                    live.partDuration = try stream.number("partDuration", in: LiveStream.partDurationRange)
                    if !stream.has("segmentDuration") { live.segmentDuration = LiveStream.defaultLowLatencySegmentDuration }
                    do { try live.validate() } catch let error as ReelError { throw stream.fail("partDuration", error.message) }
                }
                job.live.append(live)
            }
        }
        if fields.has("tiers") {
            // Further movies from the same capture: {"preset": NAME, "output": TEMPLATE, "maxSize": BYTES}.
            job.tiers = try fields.objects("tiers").map { tier in
                if let stray = tier.object.keys.sorted().first(where: { !["preset", "output", "maxSize"].contains($0) }) {
                    throw tier.fail(stray, "not a field of a tier (allowed: maxSize, output, preset)")
                }
                let tierPresetName = try tier.string("preset")
                let tierPreset: Preset
                do {
                    tierPreset = try PresetLibrary.preset(named: tierPresetName.hasSuffix(".json") ? resolve(tierPresetName, against: baseFolder) : tierPresetName)
                } catch let error as ReelError {
                    throw tier.fail("preset", error.description)
                }
                let tierOutput = try expand("output", in: tier, preset: tierPresetName)
                guard URL(fileURLWithPath: tierOutput, isDirectory: false).pathExtension.lowercased() == "mov" else {
                    throw tier.fail("output", "\(tierOutput) must end in .mov")
                }
                let maxSize = try tier.optionalByteCount("maxSize", in: RecordingLimits.smallestMaxFileSize...Int64.max / 2)
                return MovieTier(outputPath: tierOutput, preset: tierPreset, maxFileSize: maxSize)
            }
        }
        return job
    }

    /// `template` with each `{KEY}` of `values` filled in, in one pass (String.replacing per placeholder was a
    /// sixth of validating a 10,000-job file); nil when a `{...}` names no key. A lone brace stays as it is.
    static func fill(_ template: String, _ values: [String: String]) -> String? {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            result += rest[..<open]
            guard let value = values[String(rest[rest.index(after: open)..<close])] else { return nil }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `path` against the job file's folder (its path, computed once per file: URL's `path` is slow enough
    /// to matter for 10,000-job files).
    static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return path }
        // Plain relative paths are joined directly; only "." and ".." segments need URL's normalization.
        let segments = path.split(separator: "/")
        if segments.contains(where: { $0 == "." || $0 == ".." }) {
            return URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent(path).standardizedFileURL.path
        }
        return base.hasSuffix("/") ? base + path : base + "/" + path
    }
}
