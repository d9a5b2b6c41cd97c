import FFmpegCore
import FoundationEssentials
import Synchronization
import SystemSupport

/// Small JPEG pictures of what a session captures, a few a second, for a live view (a web page, an MJPEG
/// stream, a terminal app), as AVCaptureVideoPreviewLayer's role off-screen. Each picture is the session's
/// latest, scaled down from the first movie's size on the preview's own thread; when the consumer or the
/// encoding falls behind, pictures are skipped, never queued: `pictures` keeps only the newest.
///
/// Add it with `CaptureSession.addOutput(_:)` before or while recording; `pictures` ends with the session.
public final class PreviewOutput: Sendable {
    public struct Picture: Sendable {
        public let jpeg: [UInt8]
        public let width: Int
        public let height: Int
        /// Seconds since the session started (the capture clock).
        public let time: Double
        /// When the picture was captured, on the monotonic clock (CLOCK_MONOTONIC nanoseconds): how old it is
        /// when shown is `MonotonicClock.nanoseconds() - capturedAt`.
        public let capturedAt: Int64
    }

    public let width: Int
    public let framesPerSecond: Double
    public let quality: Int
    public let pictures: AsyncStream<Picture>
    private let continuation: AsyncStream<Picture>.Continuation

    /// Widths a preview may ask for, and rates.
    public static let widthRange: ClosedRange<Int> = 16...1920
    public static let frameRateRange: ClosedRange<Double> = 0.1...30

    public init(width: Int = 320, framesPerSecond: Double = 5, quality: Int = 70) throws {
        guard PreviewOutput.widthRange.contains(width) else {
            throw ReelError.invalidInput("preview width \(width) is out of range: use \(PreviewOutput.widthRange.lowerBound) to \(PreviewOutput.widthRange.upperBound)")
        }
        guard PreviewOutput.frameRateRange.contains(framesPerSecond) else {
            throw ReelError.invalidInput("preview rate \(framesPerSecond) is out of range: use 0.1 to 30 pictures a second")
        }
        guard StillRequest.qualityRange.contains(quality) else {
            throw ReelError.invalidInput("preview JPEG quality \(quality) must be from 1 to 100")
        }
        self.width = width
        self.framesPerSecond = framesPerSecond
        self.quality = quality
        (pictures, continuation) = AsyncStream.makeStream(of: Picture.self, bufferingPolicy: .bufferingNewest(1))
    }

    func deliver(_ picture: Picture) { continuation.yield(picture) }
    func finish() { continuation.finish() }
}

/// A preview's side in a running session: picks pictures at its rate and encodes them on a thread of its own,
/// one at a time (a picture that comes while one is being encoded is skipped).
final class PreviewFeed: SessionOutput, Sendable {
    let output: PreviewOutput
    private let rendition: Int
    private let rotation: DisplayTurn
    private let buffer: CaptureBuffer
    /// The session clock's zero (monotonic nanoseconds).
    private let sessionStart: Int64
    private struct State {
        /// The picture being encoded (or about to be); the next is taken once it is done.
        var mailbox: CapturedItem? = nil
        var closed = false
        /// The earliest capture time (session microseconds) of the next picture taken.
        var nextTime: Int64 = .min
    }
    private let state = Locked(State())
    private let thread = Locked<WorkerThread?>(nil)

    init(output: PreviewOutput, rendition: Int, rotation: DisplayTurn, buffer: CaptureBuffer, sessionStart: Int64) {
        self.output = output
        self.sessionStart = sessionStart
        self.rendition = rendition
        self.rotation = rotation
        self.buffer = buffer
        thread.withLock { $0 = WorkerThread(name: "reel.output.preview") { [self] in run() } }
    }

    /// Offered every picture by the session thread: takes one when it is due and the thread is free.
    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        offer(item)
    }

    func offer(_ item: CapturedItem) {
        let micros = item.time.rescaled(to: sessionTimeBase).value
        let taken = state.withLock { state in
            guard !state.closed, state.mailbox == nil, micros >= state.nextTime else { return false }
            state.nextTime = micros + Int64(1_000_000 / output.framesPerSecond)
            buffer.hold(item)
            state.mailbox = item
            return true
        }
        // The thread is woken for a picture it takes, not for each one offered.
        if taken { state.withLockNotifying { _ in } }
    }

    var role: SessionOutputRole { .companion }
    /// The thread starts with the feed (a preview added to a session that has ended closes at once).
    func start() {}
    func wants(_ type: MediaType) -> Bool { type == .video }
    var isDone: Bool { false }
    func end(_ ending: SessionEngine.Ending) { close() }

    /// The session ended: the thread finishes and the stream ends.
    func close() {
        state.withLockNotifying { $0.closed = true }
        thread.withLock { $0 }?.join()
    }

    private func run() {
        while true {
            let next = state.wait { state -> CapturedItem?? in
                if let item = state.mailbox { return .some(item) }
                return state.closed ? .some(nil) : nil
            }
            guard let item = next else { break }
            defer {
                buffer.release(.video, item.slot)
                state.withLock { $0.mailbox = nil }
            }
            do {
                let encoded = try StillImageWriter.encode(item.picture(rendition), rotation: rotation, codec: .jpeg,
                                                          quality: output.quality, width: output.width)
                let micros = item.time.rescaled(to: sessionTimeBase).value
                output.deliver(PreviewOutput.Picture(jpeg: encoded.bytes, width: encoded.width, height: encoded.height,
                                                     time: Double(micros) / 1e6, capturedAt: sessionStart + micros * 1000))
            } catch {
                // A live view goes on: a picture that cannot be encoded is skipped and the next one tried.
                continue
            }
        }
        output.finish()
    }
}
