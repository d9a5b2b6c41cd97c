import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// Replaces a running session's camera, screen or microphone without breaking its movies (the seed apps'
/// front/back switch; OBS switching scenes). The new input is opened (a camera in the mode that suits the
/// preset) and read until its first frame has arrived, while the old one still feeds the outputs; then the
/// new one hands its frames on, and once its first is out the old one stops (their frames overlap by one at
/// most, which the movies' cadence and audio placement resolve, rather than leave a hole). Both are stamped on the session's clock,
/// so the outputs see one timeline: pictures are scaled and letterboxed to every rendition as any input's
/// are, sound is resampled to the capture format, and a movie's cadence and audio placement bridge the
/// switch as they bridge any two frames. If the new input cannot be opened or delivers nothing, the
/// recording goes on with the old one and the switch throws.
struct InputSwitcher: Sendable {
    /// What stands in for `none`: black pictures and silence, so the track goes on.
    static let blackPictures = DeviceSpec(kind: .lavfi, target: "color")
    static let silence = DeviceSpec(kind: .lavfi, target: "anullsrc")

    let engine: SessionEngine
    let factory: ReaderFactory
    /// One switch at a time.
    private let serial = Locked<Void>(())

    init(engine: SessionEngine, factory: ReaderFactory) {
        self.engine = engine
        self.factory = factory
    }

    /// Switches the input of `type` to `spec` (nil: black pictures or silence) and returns once the new
    /// input feeds the outputs. Throws `ReelError` (invalidInput, deviceNotFound, deviceBusy ... as opening
    /// the device at the start would) without changing anything when it cannot.
    func switchInput(_ type: MediaType, to spec: DeviceSpec?) throws {
        try serial.withLock { _ in try carryOut(type, to: spec) }
    }

    private func carryOut(_ type: MediaType, to spec: DeviceSpec?) throws {
        let track = type == .video ? "video" : "audio"
        guard let old = engine.reader(carrying: type) else {
            throw ReelError.invalidInput(engine.hasTrack(type)
                ? "this session reads its video and audio from one input and cannot switch one of them"
                : "the recording has no \(track) track to switch: start it with a \(track) source (switching to none keeps a track going silently)")
        }
        guard old.spec.isPaced else {
            throw ReelError.invalidInput("switching needs a live session (devices, or lavfi sources without realtime=0); this one reads \(old.spec) unpaced")
        }
        let target = spec ?? (type == .video ? InputSwitcher.blackPictures : InputSwitcher.silence)
        guard target.isPaced else {
            throw ReelError.invalidInput("cannot switch to \(target): a live session takes live sources only (a file or realtime=0 would run ahead of the clock)")
        }
        let role: InputRecipe.Role = type == .video ? .video : .audio
        let interrupt = InterruptFlag()
        let source: FrameSource
        do {
            source = try InputRecipe.make(for: target, role: role, preset: factory.preset)
                .openSource(spec: target, roles: [role], interrupt: interrupt)
        } catch let error as FFmpegError {
            throw ReelError.ffmpeg(error, while: "cannot open \(target); the recording goes on with \(old.spec)")
        } catch let error as ReelError {
            throw ReelError(error.kind, "\(error.message); the recording goes on with \(old.spec)")
        }
        let reader = try factory.makeReader(target, source: source, interrupt: interrupt, maxDuration: nil, held: true)
        reader.start()
        guard reader.waitForFirstFrame(seconds: DeviceDeadlines.firstFrame) else {
            reader.stop()
            _ = reader.join(timeout: 1)
            let why = reader.ending?.message.map { ": \($0)" } ?? " within \(Int(DeviceDeadlines.firstFrame)) s"
            throw ReelError(.deviceNotFound, "\(target) delivered no \(track)\(why); the recording goes on with \(old.spec)")
        }
        guard engine.replace(old, with: reader) else {
            reader.stop()
            _ = reader.join(timeout: 1)
            throw ReelError.runtime("the session ended before \(target) could take over")
        }
        // The old input hands its frames on until the new one's first is out, then nothing more; its device is
        // closed once its thread has ended.
        _ = reader.waitForFirstPublished(seconds: 0.5)
        old.retire()
        if old.join(timeout: 1) { engine.forget(old) }
    }

    /// Replaces one input of a live composition: opened and its first picture read (for at most
    /// `DeviceDeadlines.firstFrame`) before the old one stops, so the rectangle goes from one input's picture
    /// to the other's. Throws, changing nothing, when the new input cannot be opened or delivers nothing.
    static func replaceComposedInput(_ index: Int, of composition: ComposedVideoSource, with target: DeviceSpec,
                                     preset: Preset, old: DeviceSpec) throws {
        guard target.isPaced else {
            throw ReelError.invalidInput("cannot switch to \(target): a live session takes live sources only (a file or realtime=0 would run ahead of the clock)")
        }
        let interrupt = InterruptFlag()
        let source: FrameSource
        do {
            source = try InputRecipe.make(for: target, role: .video, preset: preset)
                .openSource(spec: target, roles: [.video], interrupt: interrupt)
        } catch let error as FFmpegError {
            throw ReelError.ffmpeg(error, while: "cannot open \(target); the recording goes on with \(old)")
        } catch let error as ReelError {
            throw ReelError(error.kind, "\(error.message); the recording goes on with \(old)")
        }
        let first = Frame()
        interrupt.setDeadline(secondsFromNow: DeviceDeadlines.firstFrame)
        let deadline = MonotonicClock.nanoseconds() + Int64(DeviceDeadlines.firstFrame * 1e9)
        var read = false
        do {
            while !read && MonotonicClock.nanoseconds() < deadline {
                switch try source.nextFrame(into: first) {
                case .frame(let stream): read = stream == source.stream(of: .video)?.index
                case .endOfFile: throw ReelError(.deviceNotFound, "\(target) ended before its first picture")
                case .tryAgain: FrameRead.pauseBeforeAskingAgain()
                }
            }
        } catch let error as ReelError {
            throw ReelError(error.kind, "\(error.message); the recording goes on with \(old)")
        } catch {
            throw ReelError(.deviceNotFound, "\(target) delivered no picture: \(error); the recording goes on with \(old)")
        }
        guard read else {
            throw ReelError(.deviceNotFound, "\(target) delivered no picture within \(Int(DeviceDeadlines.firstFrame)) s; the recording goes on with \(old)")
        }
        interrupt.setDeadline(secondsFromNow: nil)
        try composition.replaceInput(index, spec: target, source: source, interrupt: interrupt, first: first)
    }
}
