import FFmpegCore
import QuickTime

/// The samples of a movie's video track and first audio track, in decode order, read once through the file
/// (payloads are not kept): what a trim is planned from. Times are the demuxer's, in each stream's time base,
/// on the presentation timeline its edit list gives (the first picture shown at 0; AAC priming before 0).
struct TrackIndex {
    let video: StreamInfo
    let audio: StreamInfo?
    var videoSamples: [Sample] = []
    var audioSamples: [Sample] = []
    /// The first keyframe's bytes (where libx264 writes the options it encoded with, see X264Options).
    var firstKeyframe: [UInt8] = []

    /// Reads every packet of `input` (from its start). Throws a one-line `ReelError.invalidInput` when the file
    /// has no video or cannot be read to its end.
    init(_ input: InputContext, path: String) throws {
        guard let video = input.bestStream(of: .video) else { throw ReelError.invalidInput("\(path) has no video stream: trim cuts movies") }
        self.video = video
        audio = input.bestStream(of: .audio)
        let packet = Packet()
        while true {
            let result: InputContext.ReadResult
            do {
                result = try input.read(into: packet)
            } catch {
                throw ReelError.invalidInput("\(path) cannot be read to its end (\(error)): it is damaged; trim needs a whole movie")
            }
            guard result != .endOfFile else { break }
            guard result == .packet else { continue }
            // A time the demuxer does not know is taken from the other (a stream without reordering).
            let decode = packet.dts == Timestamp.noValue ? packet.pts : packet.dts
            let shown = packet.pts == Timestamp.noValue ? decode : packet.pts
            guard decode != Timestamp.noValue else {
                throw ReelError.invalidInput("\(path) has packets without times: trim cannot place them")
            }
            let sample = Sample(decodeTime: decode, presentationOffset: shown - decode, duration: packet.duration,
                                size: packet.size, isKeyframe: packet.isKeyframe)
            if packet.streamIndex == video.index {
                if videoSamples.isEmpty && packet.isKeyframe { firstKeyframe = packet.data }
                videoSamples.append(sample)
            }
            else if packet.streamIndex == audio?.index { audioSamples.append(sample) }
        }
        guard !videoSamples.isEmpty else { throw ReelError.invalidInput("\(path) has a video stream without pictures") }
    }

    /// Opens `path` for `command` (trim, join): a folder, or a file FFmpeg cannot read, is one line for the user.
    static func open(_ path: String, for command: String) throws -> InputContext {
        guard !FileSystem.isFolder(path) else { throw ReelError.invalidInput("\(path) is a folder: give \(command) a movie") }
        do {
            return try InputContext(url: path, formatName: nil)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("cannot read \(path): \(error.inputProblem); check the path and that it is a movie")
        }
    }
}
