import FoundationEssentials

/// The encoders of a session without a continuous movie that still keeps packets: its replay buffer, its
/// triggered movies (`--trigger`), and the feed that decides the triggers' events.
extension CaptureSession {
    /// A movie without a file feeding the replay buffer and the triggered movies; nil when the session has its
    /// own movie (which feeds its replay buffer) or keeps no packets. Checked before anything starts.
    static func packetKeeper(_ configuration: RecordingConfiguration, context: MovieContext, schedule: TriggerSchedule?,
                             events: @escaping @Sendable (RecordingEvent) -> Void) throws -> MovieRecorder.Setup? {
        guard !configuration.hasOwnMovie else { return nil }
        var outputs: [LiveOutput] = []
        if let replay = configuration.replayBuffer { outputs.append(LiveOutput(replay: replay)) }
        if let triggers = configuration.triggers, let schedule {
            let settings = TriggerSink.Settings(
                recording: triggers, naming: SegmentNaming(template: URL(fileURLWithPath: configuration.outputPath).path),
                limits: RecordingLimits(minFreeDiskSpace: triggers.freeSpaceFloor ?? configuration.limits.minFreeDiskSpace),
                fragmentInterval: configuration.fragmentInterval, overwrite: configuration.overwrite)
            outputs.append(LiveOutput(trigger: TriggerOutput(settings: settings, schedule: schedule, events: events)))
        }
        guard !outputs.isEmpty else { return nil }
        var setup = try context.liveStreams(preset: configuration.replayBuffer?.preset ?? configuration.preset, live: outputs)
        // It writes no file itself; a replay saved from it keeps the recording's free-space floor.
        setup.limits.minFreeDiskSpace = configuration.limits.minFreeDiskSpace
        return setup
    }

    /// The feed that decides a triggered recording's events from its pictures and sound.
    static func triggerFeed(_ triggers: TriggeredRecording, schedule: TriggerSchedule, engine: SessionEngine,
                            events: @escaping @Sendable (RecordingEvent) -> Void) -> TriggerFeed {
        TriggerFeed(recording: triggers, schedule: schedule, origin: { [weak engine] in engine?.timelineOrigin ?? 0 }) { change in
            switch change {
            case .started(let event): events(.triggerStarted(event))
            case .ended(let event): events(.triggerEnded(event))
            }
        }
    }

    /// A triggered recording's events on now (none when it has no triggers, or has ended).
    public var triggersOn: [TriggerEvent] {
        let (schedule, running) = shared.withLock { ($0.triggerSchedule, $0.running != nil) }
        return running ? (schedule?.events.filter { $0.end == nil } ?? []) : []
    }
}
