import FFmpegCore
import FoundationEssentials
import Glibc

/// The packets a trim copies from its input, and how their times move: the first kept picture presents at 0,
/// and the first copied AAC frame starts `audio.skip` samples before 0 (its warm-up and what precedes the span),
/// so the writer's edit lists present exactly the span.
struct CopiedSpan {
    /// Decode-order numbers of the video packets copied.
    var video: Range<Int>
    /// Subtracted from the copied pictures' times.
    var videoShift: Int64
    var audio: AudioTrimPlan?
    /// The presentation time of the first copied AAC frame.
    var audioFirst: Int64
}

extension Trimmer {
    /// Reads `path` again and writes the span's packets to `output` (under its hidden name, renamed into place
    /// once complete). Returns the pictures written and the file's size.
    static func write(_ span: CopiedSpan, from path: String, index: TrackIndex, to output: String) throws -> (frames: Int, bytes: Int64) {
        let input = try InputContext(url: path, formatName: nil)
        let audioStream = span.audio == nil ? nil : index.audio?.index
        var streams = [try StreamParameters(copying: index.video.index, of: input)]
        if let audioStream { streams.append(try StreamParameters(copying: audioStream, of: input)) }
        let partial = PartialName.path(for: output)
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        var kept = false
        defer { if !kept { unlink(partial) } }
        let writer = try MovieWriter(path: partial, streams: streams, rotation: index.video.turn, limits: RecordingLimits(), folder: folder)
        func submit(_ packet: Packet) throws {
            if case .limitReached(let reason) = try writer.submit(packet) { throw stopped(reason, output) }
        }
        do {
            try writer.start()
            let packet = Packet()
            var videoNumber = 0, audioNumber = 0
            let audioShift = span.audioFirst + (span.audio?.skip ?? 0)
            // Up to the last packet the span needs (not to the end of a long input).
            while videoNumber < span.video.upperBound || audioNumber < (span.audio?.frames.upperBound ?? 0),
                  try input.read(into: packet) != .endOfFile {
                guard !packet.isEmpty else { continue }
                // As TrackIndex read them: a time the demuxer does not know is the other one.
                if packet.dts == Timestamp.noValue { packet.dts = packet.pts }
                if packet.pts == Timestamp.noValue { packet.pts = packet.dts }
                if packet.streamIndex == index.video.index {
                    defer { videoNumber += 1 }
                    guard span.video.contains(videoNumber) else { continue }
                    packet.pts -= span.videoShift
                    packet.dts -= span.videoShift
                    packet.streamIndex = 0
                    try submit(packet)
                } else if packet.streamIndex == audioStream, let sound = span.audio {
                    defer { audioNumber += 1 }
                    guard sound.frames.contains(audioNumber) else { continue }
                    packet.pts -= audioShift
                    packet.dts -= audioShift
                    packet.streamIndex = 1
                    // The last frame is presented up to the span's end only.
                    if audioNumber == sound.frames.upperBound - 1 { packet.duration = sound.duration - packet.pts }
                    try submit(packet)
                }
            }
            for stream in streams.indices {
                if case .limitReached(let reason) = try writer.endStream(stream) { throw stopped(reason, output) }
            }
            try writer.finish()
            if let reason = writer.stopReason { throw stopped(reason, output) }
        } catch {
            writer.abandon()
            if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace {
                throw ReelError(.diskFull, "trim \(output): the disk filled while writing it; nothing was kept")
            }
            throw error
        }
        let frames = writer.writtenPackets[0]
        let failure = FileSystem.moveIntoPlace(partial, output)
        guard failure == 0 else {
            throw ReelError.runtime("trim \(output): cannot put the movie in place (\(String(cString: strerror(failure))))")
        }
        kept = true
        var info = stat()
        return (frames, stat(output, &info) == 0 ? Int64(info.st_size) : 0)
    }

    private static func stopped(_ reason: StopReason, _ output: String) -> ReelError {
        switch reason {
        case .diskSpaceLimitReached, .diskFull:
            return ReelError(.diskFull, "trim \(output): the disk is full; nothing was kept")
        default:
            return ReelError.runtime("trim \(output): the movie stopped (\(reason.rawValue)); nothing was kept")
        }
    }
}
