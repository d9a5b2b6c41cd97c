import FFmpegCore

/// Makes a session's input readers: routes an opened source's streams to sinks that scale pictures into the
/// session's renditions and resample sound to its capture format, stamped on the session's clock. Used for
/// the inputs a session starts with and for those that replace them while it runs (InputSwitcher).
struct ReaderFactory: Sendable {
    /// The preset the session captures for (its audio format; a camera's mode is negotiated for it).
    let preset: Preset
    let renditions: PictureRenditions
    let buffer: CaptureBuffer
    /// The session clock's zero (monotonic nanoseconds).
    let sessionStart: Int64
    /// The session's paused time, which moves the readers' duration limit on.
    let pausedTime: PausedTime
    /// Set by the first picture; a live session's audio limit counts from it (when the session has video).
    let firstPicture = FirstPictureTime()
    /// Whether the session captures pictures (a live one's audio limit then waits for the first).
    let hasVideo: Bool
    /// Whether live sound is metered as it is read (see AudioFrameSink).
    let metersLevels: Bool
    /// Filters the pictures go through at the source's size (none here when a composition filters each input).
    var pictureFilters: [PictureFilterKind] = []
    /// Drawn on every picture at the capture's size (rendition 0).
    var overlays: [Overlay] = []

    /// `held`: the reader hands nothing on until released (a switch's new input).
    /// `mixLane`: the input is one of several sound inputs mixed (its blocks go to the mix).
    func makeReader(_ spec: DeviceSpec, source: FrameSource, interrupt: InterruptFlag, maxDuration: Double?,
                    held: Bool = false, mixLane: AudioMixer.Lane? = nil) throws -> InputReader {
        let statistics = ReaderStatistics()
        let routes = try source.streams.map { stream -> InputReader.Route in
            let sink: FrameSink
            switch stream.mediaType {
            case .video:
                let filters = try PictureFilterKind.chain(pictureFilters).map { try PictureFilter($0, timeBase: sessionTimeBase) }
                let capture = renditions.all.first
                let effects = try overlays.isEmpty ? nil : capture.map {
                    try PictureEffects(overlays, width: $0.width, height: $0.height, colour: $0.colour.output)
                }
                sink = try VideoFrameSink(buffer: buffer, renditions: renditions, waitsForEncoder: !spec.isPaced,
                                          statistics: statistics, maxDuration: maxDuration, pausedTime: pausedTime,
                                          firstPicture: firstPicture, filters: filters, effects: effects)
            default:
                sink = AudioFrameSink(buffer: buffer, sampleRate: preset.audio.sampleRate, channels: preset.audio.channels,
                                      blockSize: 1024, waitsForEncoder: !spec.isPaced, statistics: statistics,
                                      maxDuration: maxDuration, compensatesClockDrift: spec.isPaced && spec.isDevice,
                                      pausedTime: pausedTime, limitFrom: spec.isPaced && hasVideo ? firstPicture : nil,
                                      metersLevels: metersLevels && spec.kind != .file && mixLane == nil, mixLane: mixLane)
            }
            return InputReader.Route(stream: stream, sink: sink)
        }
        return InputReader(spec: spec, source: source, routes: routes, interrupt: interrupt, buffer: buffer,
                           sessionStart: sessionStart, statistics: statistics, held: held)
    }
}
