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
final class PreviewFeed: SessionOutput, @unchecked Sendable {
    let output: PreviewOutput
    private let rendition: Int
    private let rotation: DisplayTurn
    private let buffer: CaptureBuffer
    /// The session clock's zero (monotonic nanoseconds).
    private let sessionStart: Int64
    private let condition = Condition()
    private var mailbox: CapturedItem? = nil
    private var closed = false
    private var nextTime: Int64 = .min
    private var thread: WorkerThread?

    init(output: PreviewOutput, rendition: Int, rotation: DisplayTurn, buffer: CaptureBuffer, sessionStart: Int64) {
        self.output = output
        self.sessionStart = sessionStart
        self.rendition = rendition
        self.rotation = rotation
        self.buffer = buffer
        thread = WorkerThread(name: "reel.output.preview") { [self] in run() }
    }

    /// Offered every picture by the session thread: takes one when it is due and the thread is free.
    func take(_ type: MediaType, _ item: CapturedItem, buffer: CaptureBuffer) {
        offer(item)
    }

    func offer(_ item: CapturedItem) {
        let micros = item.time.rescaled(to: sessionTimeBase).value
        condition.lock()
        defer { condition.unlock() }
        guard !closed, mailbox == nil, micros >= nextTime else { return }
        nextTime = micros + Int64(1_000_000 / output.framesPerSecond)
        buffer.hold(item)
        mailbox = item
        condition.signal()
    }

    var role: SessionOutputRole { .companion }
    /// The thread starts with the feed (a preview added to a session that has ended closes at once).
    func start() {}
    func wants(_ type: MediaType) -> Bool { type == .video }
    var isDone: Bool { false }
    func end(_ ending: SessionEngine.Ending) { close() }

    /// The session ended: the thread finishes and the stream ends.
    func close() {
        condition.withLock {
            closed = true
            condition.signal()
        }
        thread?.join()
    }

    private func run() {
        while true {
            condition.lock()
            while mailbox == nil && !closed { condition.wait() }
            let item = mailbox
            condition.unlock()
            guard let item else { break }
            defer {
                buffer.release(.video, item.slot)
                condition.withLock { mailbox = nil }
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
