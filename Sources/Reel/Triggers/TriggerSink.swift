import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime

/// A triggered recording's movies, as one of the encoders' packet outputs (LiveOutput runs it on its thread):
/// it keeps the last seconds in a replay window for the pre-roll and, when the schedule has an event no movie
/// holds yet, starts a movie from the keyframe `preRoll` before it, feeds it every packet that comes and ends
/// it `postRoll` after the last event it holds (TriggerSchedule.stop). Events are on the recording's
/// timeline, which is the encoders' (they start with its first picture).
final class TriggerSink: LiveSink {
    struct Settings: Sendable {
        var recording: TriggeredRecording
        var naming: SegmentNaming
        var limits: RecordingLimits
        var fragmentInterval: Double
        var overwrite: Bool
    }

    private let settings: Settings
    private let schedule: TriggerSchedule
    private let events: @Sendable (RecordingEvent) -> Void
    private let streams: [StreamParameters]
    private let rotation: DisplayTurn
    private let clock: TimeBase
    private var window: ReplayWindow<Packet>
    private var movie: TriggeredMovieWriter?
    /// The first event the current movie holds, and the first no movie has held yet.
    private var movieFirstEvent = 0
    private var nextEvent = 0
    private var index = 0
    private var failure: String?
    /// The movies kept so far, oldest first (loop recording deletes from the front).
    private var kept: [String] = []

    init(settings: Settings, schedule: TriggerSchedule, video: Encoder?, audio: Encoder?, rotation: DisplayTurn,
         events: @escaping @Sendable (RecordingEvent) -> Void) throws {
        self.settings = settings
        self.schedule = schedule
        self.events = events
        self.rotation = rotation
        streams = try [video, audio].compactMap { $0 }.map(StreamParameters.init(of:))
        let videoTimeBase = video.map { TimeBase($0.timeBase) }
        let audioTimeBase = audio.map { TimeBase($0.timeBase) }
        clock = videoTimeBase ?? audioTimeBase!
        // The pre-roll, the time a trigger takes to fire, and a keyframe interval to start from.
        window = ReplayWindow(keepSeconds: settings.recording.preRoll + TriggerRule.onSeconds + TriggeredRecording.keyframeSeconds + 1,
                              maxBytes: ReplayBuffer.defaultMaxBytes, videoTimeBase: videoTimeBase, audioTimeBase: audioTimeBase)
    }

    func take(_ item: LiveItem, recycle: (Packet) -> Void) {
        switch item {
        case .video(let packet), .audio(let packet):
            let isVideo = if case .video = item { true } else { false }
            let sample = Sample(packet)
            for gone in isVideo ? window.appendVideo(sample, packet) : window.appendAudio(sample, packet) { recycle(gone) }
            guard window.video.last?.payload === packet || window.audio.last?.payload === packet else { return }
            if movie == nil { startMovieIfDue() } else { feed(packet, isVideo: isVideo) }
            if let movie {
                updateStop(of: movie)
                if movie.isFinished { finishMovie(ended: false) }
            }
        case .gap:
            // What follows does not run on from what was held: a movie under way ends here.
            if movie != nil { finishMovie(ended: true) }
            for gone in window.clear() { recycle(gone) }
        case .clock:
            break
        }
    }

    func tick(ending: Bool) {}

    func finish(recycle: (Packet) -> Void) {
        if movie != nil { finishMovie(ended: true) }
        for gone in window.clear() { recycle(gone) }
    }

    func result(dropped: LiveDrops) -> LiveResult {
        LiveResult(kind: "trigger", segments: schedule.movies.count, listedSegments: 0, bytes: schedule.movies.reduce(0) { $0 + $1.bytes },
                   duration: 0, droppedPackets: dropped.packets, gaps: 0, error: failure)
    }

    private func ticks(_ seconds: Double) -> Int64 { Int64((seconds / clock.secondsPerTick).rounded()) }

    /// An event no movie holds yet: a movie starts from the keyframe `preRoll` before it, with what the
    /// window holds from there.
    private func startMovieIfDue() {
        let scheduled = schedule.events
        guard nextEvent < scheduled.count else { return }
        let event = scheduled[nextEvent]
        guard let cut = window.tail(from: ticks(event.start - settings.recording.preRoll)) else { return }
        index += 1
        let path = SegmentNaming.freeName(for: settings.naming.path(index: index, date: Date())) { candidate in
            settings.overwrite || !FileManager.default.fileExists(atPath: candidate)
        }
        do {
            let writer = try TriggeredMovieWriter(path: path, streams: streams, rotation: rotation, limits: settings.limits,
                                                  fragmentInterval: settings.fragmentInterval, start: cut.start, audioStart: cut.audioStart)
            movie = writer
            movieFirstEvent = nextEvent
            for entry in cut.video { feed(entry.payload, isVideo: true) }
            for entry in cut.audio { feed(entry.payload, isVideo: false) }
        } catch {
            report(TriggeredMovie(path: path, events: [event], start: Double(cut.start) * clock.secondsPerTick, end: Double(cut.start) * clock.secondsPerTick,
                                  seconds: 0, videoFrames: 0, bytes: 0, stopReason: .failed, error: "\(error)"))
            nextEvent += 1
        }
    }

    /// Loop recording: this recording's oldest movies go while the movie being written has less room before
    /// the floor than a margin (a megabyte, or four of the packets coming), as a segmented recording's do.
    private func makeRoom(for bytes: Int, in movie: TriggeredMovieWriter) {
        guard settings.recording.deletesOldestForFreeSpace, settings.limits.minFreeDiskSpace > 0 else { return }
        let margin = Int64(max(1 << 20, 4 * bytes))
        while movie.freeSpaceHeadroom < margin, !kept.isEmpty {
            let oldest = kept.removeFirst()
            unlink(oldest)
            schedule.deleted(oldest)
            movie.refreshDiskSpace()
        }
    }

    /// Hands the movie its own reference to a packet (the window keeps the other).
    private func feed(_ packet: Packet, isVideo: Bool) {
        guard let movie, !movie.isFinished else { return }
        let own = movie.emptyPacket()
        makeRoom(for: packet.size, in: movie)
        do {
            try own.reference(packet)
            if isVideo { try movie.video(own) } else { try movie.audio(own) }
        } catch {
            failure = "\(movie.path): \(error)"
            finishMovie(ended: true)
        }
    }

    /// Where the movie ends: `postRoll` after the last event it holds, once they have all ended.
    private func updateStop(of movie: TriggeredMovieWriter) {
        let (end, next) = TriggerSchedule.stop(of: schedule.events, from: movieFirstEvent, postRoll: settings.recording.postRoll)
        nextEvent = max(nextEvent, next)
        movie.stopAt = end.map { ticks($0) - movie.start }
    }

    private func finishMovie(ended: Bool) {
        guard let movie else { return }
        self.movie = nil
        let held = Array(schedule.events[movieFirstEvent..<max(movieFirstEvent, min(nextEvent, schedule.events.count))])
        let start = Double(movie.start) * clock.secondsPerTick
        var made = TriggeredMovie(path: movie.path, events: held, start: start, end: start + movie.seconds, seconds: movie.seconds,
                                  videoFrames: movie.videoFrames, bytes: 0, stopReason: movie.limit, error: nil)
        do {
            made.bytes = try movie.finish(ended: ended)
        } catch {
            made.stopReason = .failed
            made.error = "\(error)"
        }
        made.seconds = movie.seconds
        made.videoFrames = movie.videoFrames
        made.end = start + movie.seconds
        if made.error == nil { kept.append(made.path) }
        report(made)
    }

    private func report(_ movie: TriggeredMovie) {
        schedule.add(movie)
        events(.triggeredMovie(movie))
    }
}

/// What a triggered recording's packet output is made with (LiveOutput opens its TriggerSink from it).
final class TriggerOutput: Sendable {
    let settings: TriggerSink.Settings
    let schedule: TriggerSchedule
    let events: @Sendable (RecordingEvent) -> Void

    init(settings: TriggerSink.Settings, schedule: TriggerSchedule, events: @escaping @Sendable (RecordingEvent) -> Void) {
        self.settings = settings
        self.schedule = schedule
        self.events = events
    }
}
