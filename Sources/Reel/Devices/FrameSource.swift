import FFmpegCore
import Glibc

/// What one call to a FrameSource gave.
enum FrameRead: Equatable {
    /// The frame now holds a frame of the stream with this index.
    case frame(streamIndex: Int)
    case endOfFile
    /// A non-blocking device had nothing yet; ask again shortly.
    case tryAgain

    /// The pause before asking a source again that had nothing (a demuxer's EAGAIN, a camera's 50 ms poll that
    /// timed out): every reader's one policy, as the ffmpeg CLI sleeps 10 ms on EAGAIN. Short, so a picture
    /// that comes meanwhile is late by at most this; sources that can wait for their device do so themselves.
    static func pauseBeforeAskingAgain() { usleep(2_000) }
}

/// One stream a FrameSource delivers.
struct SourceStream {
    let index: Int
    let mediaType: MediaType
    /// Of the frames' timestamps.
    let timeBase: Rational
    /// Clockwise degrees a player turns the pictures (a phone's portrait movie); 0 for sound.
    var rotation: DisplayTurn = 0
    /// What the stream says of its pictures' colour (unspecified for lavfi graphs and most devices).
    var colour: ColourDescription = .unspecified
    /// Bits per sample of its pictures (10 for most HDR video).
    var bitsPerComponent = 8
    /// Its pictures' format and size, when the container says (zero and .none for lavfi graphs).
    var pictureFormat: PixelFormat = .none
    var width = 0
    var height = 0
}

/// The frames of one opened input, one at a time, on the calling thread: decoded from a demuxer's packets
/// (DecodingFrameSource) or made by a lavfi graph with no demuxer or decoder in between (FilterGraphSource).
/// Reader threads, grab and snap all take their frames from one.
protocol FrameSource: AnyObject {
    var streams: [SourceStream] { get }
    func nextFrame(into frame: Frame) throws -> FrameRead
    /// Where the input's timeline starts (its earliest stream), when a container says.
    var startTime: Timestamp? { get }
    /// Whether timestamps may jump (MPEG-TS and PS splices), so leaps forward are glued too.
    var timestampsMayJump: Bool { get }
    /// Seconds the input lasts, when a container says.
    var durationSeconds: Double? { get }
    /// Pictures the device itself dropped so far (a camera with no buffer queued when a picture was due),
    /// where it says so; the reader counts them with its own drops.
    var picturesDroppedByDevice: Int { get }
}

extension FrameSource {
    var picturesDroppedByDevice: Int { 0 }

    func stream(of type: MediaType) -> SourceStream? { streams.first { $0.mediaType == type } }

    /// The next frame, waiting out a device that has nothing yet; false at the end. For single-stream sources.
    func next(into frame: Frame) throws -> Bool {
        while true {
            switch try nextFrame(into: frame) {
            case .frame: return true
            case .endOfFile: return false
            case .tryAgain: FrameRead.pauseBeforeAskingAgain()
            }
        }
    }
}

extension FilterGraphSource: FrameSource {
    var streams: [SourceStream] { [SourceStream(index: 0, mediaType: mediaType, timeBase: timeBase)] }
    var startTime: Timestamp? { nil }
    var timestampsMayJump: Bool { false }
    var durationSeconds: Double? { nil }

    func nextFrame(into frame: Frame) throws -> FrameRead {
        switch try read(into: frame) {
        case .frame: return .frame(streamIndex: 0)
        case .endOfFile: return .endOfFile
        case .tryAgain: return .tryAgain
        }
    }
}
