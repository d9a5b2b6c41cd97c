import FFmpegCore
import FoundationEssentials
import Glibc

/// Records from devices into a QuickTime movie, like AVCaptureSession with an AVCaptureMovieFileOutput:
/// configure, `start`, receive events, `stop` (or let a limit stop it), read the result; then record again.
///
/// `start` opens the devices on the calling thread (it blocks briefly, and throws `ReelError.invalidInput`
/// before anything is written when a device, limit or output path is unusable). Capture and encoding then
/// run on dedicated threads; events arrive on the encoding thread.
public final class CaptureSession: Sendable {
    public enum State: Sendable, Equatable {
        case ready
        case recording
        case finished(RecordingResult)
    }

    private let state = Locked<State>(.ready)
    private let running = Locked<RecordingEngine?>(nil)
    /// While `start` opens the inputs: raised by `stop`, it ends a wait for an input (a named pipe without a
    /// writer) and stops the readers.
    private let starting = Locked<InterruptFlag?>(nil)
    private let finishedSignal = Locked<[CheckedContinuation<RecordingResult, Never>]>([])
    private let finishCondition = Condition()

    public init() {}

    /// Where a recording to `outputPath` is written until it is finalized and renamed: a hidden file beside it.
    public static func partialPath(for outputPath: String) -> String {
        let output = URL(fileURLWithPath: outputPath)
        return output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).partial").path
    }

    public var currentState: State { state.withLock { $0 } }

    /// Starts recording. Throws without writing anything if the configuration cannot work.
    /// A session that finished may start again (a retake), to the same or another output.
    public func start(_ configuration: RecordingConfiguration,
                      events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws {
        try state.withLock { current in
            if current == .recording {
                throw ReelError.invalidInput("this session is already recording; stop it first")
            }
            current = .recording
        }
        let interrupt = InterruptFlag()
        starting.withLock { $0 = interrupt }
        defer { starting.withLock { $0 = nil } }
        do {
            let engine = try RecordingPreparation(configuration, interrupt: interrupt).makeEngine(events: events)
            running.withLock { $0 = engine }
            // A stop that came while the inputs were opening is carried out now.
            if interrupt.isRaised { engine.requestStop() }
            _ = WorkerThread(name: "reel.encoder") {
                let result = engine.run()
                self.didFinish(result)
                events(.finished(result))
            }
        } catch {
            state.withLock { $0 = .ready }
            throw error
        }
    }

    /// Asks the recording to stop; the file is then finalized. Returns at once; `waitUntilFinished()` or
    /// `finished()` give the result.
    public func stop() {
        if let engine = running.withLock({ $0 }) {
            engine.requestStop()
        } else {
            starting.withLock { $0?.raise() }
        }
    }

    /// Blocks the calling thread until the recording has finished (not for use on Swift's cooperative pool).
    public func waitUntilFinished() -> RecordingResult {
        finishCondition.lock()
        defer { finishCondition.unlock() }
        while true {
            if case .finished(let result) = currentState { return result }
            finishCondition.wait()
        }
    }

    /// Suspends until the recording has finished.
    public func finished() async -> RecordingResult {
        await withCheckedContinuation { continuation in
            let immediate: RecordingResult? = finishedSignal.withLock { waiters in
                if case .finished(let result) = currentState { return result }
                waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// Records with `configuration` until a limit, the input's end or `stop()`; returns the result.
    public func record(_ configuration: RecordingConfiguration,
                       events: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) async throws -> RecordingResult {
        // Opening devices blocks; do it on a thread of its own rather than on Swift's cooperative pool.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            _ = WorkerThread(name: "reel.start") {
                do {
                    try self.start(configuration, events: events)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return await finished()
    }

    private func didFinish(_ result: RecordingResult) {
        let waiters = finishedSignal.withLock { waiters in
            state.withLock { $0 = .finished(result) }
            defer { waiters.removeAll() }
            return waiters
        }
        finishCondition.lock()
        finishCondition.broadcast()
        finishCondition.unlock()
        running.withLock { $0 = nil }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}

