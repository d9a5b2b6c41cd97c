import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime
import SystemSupport

/// A replay buffer (`--replay-buffer S`, OBS's replay buffer, a dashcam's loop): the last `seconds` of the
/// recording's encoded pictures and sound kept in memory, whole groups of pictures from a keyframe, bounded in
/// bytes as well, and written to a regular movie on demand (`save(to:seconds:)`) while it keeps filling. It is
/// fed the packets of the movie it belongs to, or of encoders of its own in a session without a movie: no
/// second encode. Give it to `RecordingConfiguration.replayBuffer` (or `CaptureSession.addOutput(_:)` on a
/// running session without a movie) and keep the reference to save from.
public final class ReplayBuffer: Sendable {
    /// Seconds kept (a save of them all is at most one group of pictures longer).
    public let seconds: Double
    /// Bytes of packets kept at most: past them the oldest groups go even within `seconds` (the newest group
    /// always stays).
    public let maxBytes: Int
    /// The preset of its own encoders, in a session without a movie (`CaptureSession.addOutput(_:)`); a
    /// recording's buffer takes its movie's.
    public let preset: Preset?

    public static let defaultSeconds: Double = 30
    public static let secondsRange: ClosedRange<Double> = 1...3600
    /// 60 s of the 1080p preset at its ceiling (10 Mbit/s video + 160 kbit/s sound = 76 MB) and the extra group
    /// of pictures a save may start with: 80 MiB.
    public static let defaultMaxBytes = 80 * 1024 * 1024
    public static let maxBytesRange: ClosedRange<Int> = (1024 * 1024)...(8 * 1024 * 1024 * 1024)
    /// How long a save waits for the encoders to give out the pictures up to its request (x264's delay is a
    /// few pictures; a busy machine's more) before it takes what there is.
    static let encoderWait: Int64 = 2_000_000_000

    private struct State {
        var window: ReplayWindow<Packet>?
        /// The packets' descriptions (the encoders', copied on their thread) and the movie's rotation.
        var streams: (video: StreamParameters?, audio: StreamParameters?) = (nil, nil)
        var rotation = DisplayTurn(clockwiseDegrees: 0)
        /// The slot of the newest picture the movie has been given (the request's moment), -1 before one.
        var newestPicture: (@Sendable () -> Int64)?
        /// The floor of free space a save keeps (the recording's `--min-free`).
        var minFreeBytes: Int64 = 0
        var saves: [ReplaySave] = []
        /// A recording fills it (from its start, or from `addOutput`, to its end).
        var claimed = false
        /// The paths saves are writing now (two saves to one name at once: the second is refused).
        var writing: Set<String> = []
    }
    private let state = Locked(State())

    public init(seconds: Double = ReplayBuffer.defaultSeconds, maxBytes: Int = ReplayBuffer.defaultMaxBytes, preset: Preset? = nil) {
        self.seconds = seconds
        self.maxBytes = maxBytes
        self.preset = preset
    }

    /// Rejects settings that cannot work before anything is recorded.
    package func validate() throws {
        guard ReplayBuffer.secondsRange.contains(seconds) else {
            throw ReelError.invalidInput("replay buffer of \(NumberText.plain(seconds)) s is out of range: use \(NumberText.plain(ReplayBuffer.secondsRange.lowerBound)) to \(NumberText.plain(ReplayBuffer.secondsRange.upperBound)) seconds")
        }
        guard ReplayBuffer.maxBytesRange.contains(maxBytes) else {
            throw ReelError.invalidInput("replay buffer size \(ByteCount.format(Int64(maxBytes))) is out of range: use 1M to 8G")
        }
    }

    /// Seconds of the recording held now, and their bytes.
    public var held: (seconds: Double, bytes: Int) {
        state.withLock { ($0.window?.heldSeconds ?? 0, $0.window?.bytes ?? 0) }
    }

    /// The saves made so far, in order.
    public var saves: [ReplaySave] { state.withLock { $0.saves } }

    /// Takes the buffer for one recording (a buffer is filled by one at a time); false when another has it.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    /// The recording that claimed it has ended (whether or not it ever fed it).
    func release() { state.withLock { $0.claimed = false } }

    /// The movie's encoders are open (on its thread): packets are described by them from now on.
    func open(video: Encoder?, audio: Encoder?, rotation: DisplayTurn, minFreeBytes: Int64,
              newestPicture: @escaping @Sendable () -> Int64) throws {
        let streams = (try video.map(StreamParameters.init(of:)), try audio.map(StreamParameters.init(of:)))
        state.withLockNotifying { state in
            state.streams = streams
            state.rotation = rotation
            state.minFreeBytes = minFreeBytes
            state.newestPicture = newestPicture
            state.window = ReplayWindow(keepSeconds: seconds, maxBytes: maxBytes,
                                        videoTimeBase: streams.0.map { TimeBase($0.timeBase) },
                                        audioTimeBase: streams.1.map { TimeBase($0.timeBase) })
        }
    }

    /// Keeps a packet (the sink's reference); returns the packets let go.
    func keep(_ packet: Packet, isVideo: Bool) -> [Packet] {
        state.withLockNotifying { state in
            guard state.window != nil else { return [packet] }
            let sample = Sample(packet)
            return isVideo ? state.window!.appendVideo(sample, packet) : state.window!.appendAudio(sample, packet)
        }
    }

    /// Packets were lost (the feed fell behind): what is held does not run on into what comes next.
    func clear() -> [Packet] { state.withLockNotifying { $0.window?.clear() ?? [] } }

    /// The feed ended: the last pictures are complete and stay there for saves.
    func end() { state.withLockNotifying { $0.window?.end() } }

    /// Writes the last `seconds` (nil: all held) up to now to a regular movie at `path` (.mov), while the
    /// buffer keeps filling; returns what it holds. It starts on a keyframe (at most one group of pictures
    /// before the seconds asked) with its sound (the AAC priming trimmed by an edit list) and ends with the
    /// newest picture captured when it was asked for (it waits for the encoders to give it out). Written under
    /// a hidden name and renamed into place. Throws `ReelError` (`.outputExists` without `overwrite`,
    /// `.invalidInput` for a bad path or an empty buffer) having written nothing.
    @available(*, noasync, message: "use save(to:seconds:overwrite:) from async code")
    public func saveAndWait(to path: String, seconds asked: Double? = nil, overwrite: Bool = false) throws -> ReplaySave {
        let requested = MonotonicClock.nanoseconds()
        if let asked, !(asked > 0 && asked.isFinite) {
            throw ReelError.invalidInput("save-replay \(NumberText.plain(asked)) s: give a number of seconds above 0, or none for everything held")
        }
        try ReplayBuffer.checkDestination(path, overwrite: overwrite)
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard state.withLock({ $0.writing.insert(absolute).inserted }) else {
            throw ReelError(.outputExists, "\(path) is being written by another save: choose another name")
        }
        defer { _ = state.withLock { $0.writing.remove(absolute) } }
        let through = state.withLock { state in state.streams.video == nil ? nil : state.newestPicture?() }.flatMap { $0 >= 0 ? $0 : nil }
        let deadline = requested + ReplayBuffer.encoderWait
        let ready = state.wait(until: { state -> Bool? in
            guard let window = state.window else { return nil }
            return window.cut(seconds: asked, through: through) != nil ? true : nil
        }, deadline: deadline) ?? false
        let taken = try state.withLock { state -> (Cut, StreamParameters?, StreamParameters?, DisplayTurn, Int64) in
            guard let window = state.window, let cut = window.cut(seconds: asked, through: ready ? through : nil, final: !ready),
                  !cut.video.isEmpty || !cut.audio.isEmpty else {
                throw ReelError.invalidInput("save-replay: the replay buffer holds nothing yet (it fills from the first keyframe): try again in a moment")
            }
            return (try Cut(cut, video: state.streams.video, audio: state.streams.audio), state.streams.video, state.streams.audio,
                    state.rotation, state.minFreeBytes)
        }
        let (cut, video, audio, rotation, minFree) = taken
        var save = try ReplayMovie.write(cut.packets, streams: [video, audio].compactMap { $0 }, rotation: rotation, to: path,
                                         minFreeBytes: minFree, overwrite: overwrite)
        save.requestedSeconds = asked
        save.seconds = cut.window.seconds
        let base = video.map { $0.timeBase.doubleValue } ?? audio.map { $0.timeBase.doubleValue } ?? 0
        save.start = Double(cut.window.start) * base
        save.end = Double(cut.window.end) * base
        save.requestedAt = through.map { Double($0) * base }
        save.milliseconds = Double(MonotonicClock.nanoseconds() - requested) / 1e6
        state.withLock { $0.saves.append(save) }
        return save
    }

    /// Saves on a small pool of threads of its own (the wait for the encoders and the writing block): see
    /// `saveAndWait(to:seconds:overwrite:)`. Throws `ReelError.runtime` when more saves wait than the pool takes.
    public func save(to path: String, seconds: Double? = nil, overwrite: Bool = false) async throws -> ReplaySave {
        try await withCheckedThrowingContinuation { continuation in
            let queued = ReplayBuffer.savers.submit { [self] in
                continuation.resume(with: Result { try saveAndWait(to: path, seconds: seconds, overwrite: overwrite) })
            }
            if !queued { continuation.resume(throwing: ReelError.runtime("save-replay: \(ReplayBuffer.queuedSaves) saves wait already: try again")) }
        }
    }

    /// Threads the async saves of every buffer run on, and how many may wait.
    private static let queuedSaves = 16
    private static let savers = WorkPool(name: "reel.replay.save", threads: 2, queueLimit: queuedSaves)

    /// A save's packets: new references to the held payloads, their times moved so the first picture is at 0
    /// (sound before it, the priming, decodes before 0 and is trimmed by the edit list).
    private struct Cut {
        let window: ReplayWindow<Packet>.Cut
        let packets: [Packet]

        init(_ cut: ReplayWindow<Packet>.Cut, video: StreamParameters?, audio: StreamParameters?) throws {
            window = cut
            var packets: [Packet] = []
            packets.reserveCapacity(cut.video.count + cut.audio.count)
            for (entries, offset, stream) in [(cut.video, cut.start, 0), (cut.audio, cut.audioStart, video == nil ? 0 : 1)] {
                for entry in entries {
                    let packet = Packet()
                    try packet.reference(entry.payload)
                    packet.pts -= offset
                    packet.dts -= offset
                    packet.streamIndex = stream
                    packets.append(packet)
                }
            }
            self.packets = packets
        }
    }

    /// A save's destination: a .mov name in a folder that exists, not there yet unless `overwrite`.
    static func checkDestination(_ path: String, overwrite: Bool) throws {
        guard path.lowercased().hasSuffix(".mov") else {
            throw ReelError.invalidInput("save-replay \(path): give the movie a name ending in .mov")
        }
        try FileSystem.checkNewFile(path, what: "the replay", names: ".mov", overwrite: overwrite)
        if FileManager.default.fileExists(atPath: PartialName.path(for: path)) {
            throw ReelError(.outputExists, "\(PartialName.path(for: path)) (where \(path) is written until it is complete) already exists: another save may be writing it; choose another name")
        }
    }
}
