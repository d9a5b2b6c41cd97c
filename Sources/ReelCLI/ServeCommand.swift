import Dispatch
import FoundationEssentials
import Glibc
@_spi(ReelTools) import Reel
import ReelServer

/// `reel serve`: the camera in a browser and over an HTTP API, until Ctrl-C.
enum ServeCommand {
    static let help = """
        usage: reel serve [--listen HOST:PORT] [--recordings DIR] [--token TOKEN]
                          [--video SPEC|none ...] [--layout NAME] [--audio SPEC|none ...] [--audio-tracks mix|separate]
                          [--preset NAME] [--no-camera]
                          [--live | --live-folder DIR] [--live-push URL ...] [--alarm KIND[:THRESHOLD[:SECONDS]] ...]
                          [--replay-buffer S [--replay-buffer-size BYTES]] [--trigger KIND[:T] [--pre-roll S] [--post-roll S]]

        Serves the camera page (live preview, tap = photo, hold = movie, retake/use, recordings) and its JSON
        API (see the README's "Serving the camera") until Ctrl-C, which finalizes what is being recorded.
          --listen HOST:PORT   where to listen (default \(ListenAddress.defaultValue)); an address other than
                               loopback needs a token, and one is generated and printed when none is given
          --recordings DIR     the folder photos and movies go to and are served from (default \(CameraServer.Options.defaultRecordings))
          --token TOKEN        required as 'Authorization: Bearer TOKEN' (or open /?token=TOKEN once); without it,
                               the environment's REEL_TOKEN if set
          --video, --audio     the camera and microphone (default: as reel record); none leaves one out;
                               repeated, the pictures are composed (--layout pip, side-by-side, grid, only:N;
                               the page offers them) and the sounds mixed (--audio-tracks separate: a
                               track each in the movies), as reel record does
          --preset NAME        the capture and movie quality (default \(CameraServer.Options.defaultPreset); reel presets)
          --no-camera          do not start the camera; the page or POST /api/session/start does
          --live               also stream the camera as Low-Latency HLS at /live/index.m3u8 (its own
                               encode at the preset, no B-frames; 2 s segments of 0.5 s parts), with
                               blocking playlist reloads; the page plays it where the browser can
          --live-push URL      also push the camera to a server (srt://HOST:PORT, rtmp://HOST/APP/KEY;
                               repeatable), reconnecting as reel record does; connection changes are
                               events on /api/events (liveConnected, liveDisconnected, liveReconnecting)
          --live-folder DIR    serve the HLS stream another reel writes to DIR (reel record --live DIR
                               --low-latency) at /live/index.m3u8, answering Low-Latency HLS blocking
                               playlist reloads (_HLS_msn, _HLS_part) and preload hints as it is written
          --alarm KIND[:THRESHOLD[:SECONDS]]
                               watch the camera for silence, clipping, black or frozen pictures (as reel
                               record --alarm; repeatable): alarmStarted / alarmEnded on /api/events, the
                               ones on in /api/status, a banner on the page
          --replay-buffer S    keep the camera's last S seconds in memory (--replay-buffer-size BYTES bounds it;
                               default \(ByteCount.format(Int64(ReplayBuffer.defaultMaxBytes)))); POST /api/replay {"seconds": N} or the page's Save
                               replay button writes them to replay-….mov in the recordings folder
          --trigger motion[:AREA] | sound[:LEVEL]   (with --pre-roll S, --post-roll S, --keep-free BYTES)
                               movies of the camera around events, event-….mov in the recordings folder
                               (as reel record --trigger); triggerStarted / triggerEnded / triggeredMovie
                               on /api/events

        exit codes: 0 stopped, 1 the camera or server failed, 2 bad usage (a busy port, an unknown preset)
        """

    static func run(_ arguments: [String]) -> ExitCode {
        SignalHandling.install()
        let server: CameraServer
        do {
            let parsed = try ParsedArguments(arguments, command: "serve", specification: .init(
                valueOptions: Set(["--listen", "--recordings", "--token", "--video", "--audio", "--preset", "--layout", "--audio-tracks", "--live-folder", "--live-push", "--alarm",
                                   "--keep-free"]).union(ReplayOptions.valueOptions).union(TriggerOptions.valueOptions),
                flagOptions: ["--no-camera", "--live"]))
            guard parsed.positionals.isEmpty else { throw UsageError("serve: unexpected '\(parsed.positionals[0])' (reel serve --help)") }
            var options = CameraServer.Options()
            if let listen = parsed.value("--listen") { options.listen = listen }
            if let folder = parsed.value("--recordings") { options.recordings = folder }
            // REEL_TOKEN keeps the token off the command line (ps shows that): reel-serve.service's environment file.
            options.token = parsed.value("--token") ?? getenv("REEL_TOKEN").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            let videos = parsed.allValues("--video"), audios = parsed.allValues("--audio")
            if let video = videos.first { options.video = video == "none" ? nil : try DeviceSpec(parsing: video).description }
            if let audio = audios.first { options.audio = audio == "none" ? nil : try DeviceSpec(parsing: audio).description }
            let (moreVideo, layout) = try RecordingOptions.composition(parsed)
            options.moreVideo = moreVideo.map(\.description)
            let (moreAudio, audioTracks) = try RecordingOptions.mix(parsed)
            (options.moreAudio, options.audioTracks) = (moreAudio.map(\.description), audioTracks)
            if parsed.value("--layout")?.lowercased().hasSuffix(".json") == true {
                throw UsageError("serve: --layout takes a built-in layout (\(VideoLayout.builtInNames.joined(separator: ", ")), only:N): the page switches between those")
            }
            options.layout = layout?.name
            if let preset = parsed.value("--preset") { options.preset = preset }
            options.startsCamera = !parsed.has("--no-camera")
            options.liveFolder = parsed.value("--live-folder")
            options.streamsCamera = parsed.has("--live")
            options.livePushes = parsed.allValues("--live-push")
            options.alarms = try RecordingOptions.alarms(parsed)
            // The replay buffer and triggers, read as reel record reads them.
            var keeping = RecordingConfiguration(outputPath: "", preset: try PresetLibrary.preset(named: options.preset))
            try ReplayOptions.apply(parsed, to: &keeping, hasOutput: false)
            try TriggerOptions.apply(parsed, to: &keeping)
            if let bytes = try parsed.byteCount("--keep-free", examples: "500M, 2Gi") {
                guard keeping.triggers != nil else { throw UsageError("--keep-free makes room for triggered movies: add --trigger") }
                keeping.triggers?.deletesOldestForFreeSpace = true
                keeping.triggers?.freeSpaceFloor = bytes
            }
            options.replaySeconds = keeping.replayBuffer?.seconds
            options.replayBytes = keeping.replayBuffer?.maxBytes ?? ReplayBuffer.defaultMaxBytes
            options.triggers = keeping.triggers
            server = try CameraServer(options)
        } catch {
            return .reporting(error)
        }
        let started: CameraServer.Started
        do {
            started = try server.start()
        } catch {
            server.stop()
            return .reporting(error)
        }
        Terminal.writeOutput("serving \(started.url)  (recordings in \(started.recordings); Ctrl-C stops)\n")
        // Serve until the first SIGINT or SIGTERM (a second Ctrl-C while stopping exits at once).
        let stop = DispatchSemaphore(value: 0)
        SignalHandling.shared.attach(stop: { stop.signal() }, abort: { _exit(ExitCode.interrupted.rawValue) })
        if !SignalHandling.shared.stopRequested { stop.wait() }
        server.stop()
        return .success
    }
}
