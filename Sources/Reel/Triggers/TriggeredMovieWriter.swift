import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime

/// One triggered movie, written as its packets come (on the trigger output's thread): it starts with the
/// pre-roll held in the replay window (from a keyframe) and goes on with each packet, times moved so its
/// first picture is at 0. Pictures are written up to decode-order boundaries where every picture shown so
/// far is complete (B-frames decoded after the picture shown after them), so it can end at any of them:
/// once `stopAt` is set, at the first such boundary past it. Sound goes in as far as the pictures written,
/// and at the end up to the last picture's end. Written under a hidden name, renamed into place when finalized.
final class TriggeredMovieWriter {
    let path: String
    private let partial: String
    private let writer: MovieWriter
    private let hasVideo: Bool
    private let videoTimeBase: TimeBase?
    private let audioTimeBase: TimeBase?
    /// Where the movie's zero is in the feed's ticks (video, or sound alone) and in audio ticks.
    let start: Int64
    private let audioStart: Int64
    private var pendingVideo: [Packet] = []
    private var pendingAudio: [Packet] = []
    /// The end of the pictures written (the movie's ticks, exclusive).
    private var writtenEnd: Int64 = 0
    /// The movie ends at the first complete boundary at or past this (the movie's ticks); nil: it goes on.
    var stopAt: Int64?
    private(set) var isFinished = false
    /// Why the writer stopped taking packets early (a limit of its own: the free-space floor, a full disk).
    private(set) var limit: StopReason?
    /// Packets the writer has emptied (it takes their payloads), for the next references: no allocation per
    /// packet once warm.
    private var spare: [Packet] = []

    init(path: String, streams: [StreamParameters], rotation: DisplayTurn, limits: RecordingLimits, fragmentInterval: Double,
         start: Int64, audioStart: Int64) throws {
        self.path = path
        partial = PartialName.path(for: path)
        hasVideo = streams.contains { $0.mediaType == .video }
        videoTimeBase = streams.first { $0.mediaType == .video }.map { TimeBase($0.timeBase) }
        audioTimeBase = streams.first { $0.mediaType == .audio }.map { TimeBase($0.timeBase) }
        self.start = start
        self.audioStart = audioStart
        writer = try MovieWriter(path: partial, streams: streams, rotation: rotation, limits: limits,
                                 folder: URL(fileURLWithPath: path).deletingLastPathComponent().path, fragmentInterval: fragmentInterval)
        do {
            try writer.start()
        } catch {
            writer.abandon()
            unlink(partial)
            throw error
        }
    }

    /// A video packet in decode order (the writer's own reference).
    func video(_ packet: Packet) throws {
        guard !isFinished else { return }
        packet.pts -= start
        packet.dts -= start
        packet.streamIndex = 0
        pendingVideo.append(packet)
        try writeCompletePictures(ending: false)
    }

    /// An audio packet in order (the writer's own reference).
    func audio(_ packet: Packet) throws {
        guard !isFinished else { return }
        packet.pts -= audioStart
        packet.dts -= audioStart
        packet.streamIndex = hasVideo ? 1 : 0
        pendingAudio.append(packet)
        if !hasVideo {
            writtenEnd = packet.pts + packet.duration
            if let stopAt, packet.pts >= stopAt {
                pendingAudio.removeLast()
                isFinished = true
            }
        }
        try writeSound(final: isFinished)
    }

    /// Writes the pictures up to the last complete boundary (or, `ending`: all of them), or up to the first
    /// complete one past `stopAt`, which finishes the movie.
    private func writeCompletePictures(ending: Bool) throws {
        guard !pendingVideo.isEmpty else { return }
        var laterMinimum = [Int64](repeating: Int64.max, count: pendingVideo.count + 1)
        for index in pendingVideo.indices.reversed() { laterMinimum[index] = min(laterMinimum[index + 1], pendingVideo[index].pts) }
        var newestEnd = writtenEnd
        var newest = Int64.min
        var boundary = 0
        for index in pendingVideo.indices {
            let packet = pendingVideo[index]
            if packet.pts > newest {
                newest = packet.pts
                newestEnd = packet.pts + max(packet.duration, 1)
            }
            let closed = index + 1 < pendingVideo.count ? newest < laterMinimum[index + 1] : ending
            guard closed else { continue }
            boundary = index + 1
            if let stopAt, newestEnd >= stopAt {
                isFinished = true
                break
            }
        }
        guard boundary > 0 else { return }
        for packet in pendingVideo[..<boundary] {
            let outcome = try writer.submit(packet)
            spare.append(packet)
            if case .limitReached(let reason) = outcome {
                limit = reason
                isFinished = true
                break
            }
        }
        pendingVideo.removeFirst(boundary)
        writtenEnd = max(writtenEnd, newestEnd)
        if isFinished { pendingVideo.removeAll() }
        try writeSound(final: isFinished)
    }

    /// Sound up to the pictures written (with `final`, up to their end and no further).
    private func writeSound(final: Bool) throws {
        let end: Int64
        if hasVideo, let videoTimeBase, let audioTimeBase {
            end = videoTimeBase.convert(writtenEnd, to: audioTimeBase, rounding: .up)
        } else {
            end = writtenEnd
        }
        var written = 0
        for packet in pendingAudio {
            guard packet.pts < end || (!hasVideo && !final) else { break }
            if limit == nil, case .limitReached(let reason) = try writer.submit(packet) {
                limit = reason
                isFinished = true
            }
            spare.append(packet)
            written += 1
        }
        pendingAudio.removeFirst(written)
        if final { pendingAudio.removeAll() }
    }

    /// Finalizes the movie (`ended`: the feed is over, the pictures held are complete) and puts it in place;
    /// returns its size, or throws having deleted it.
    func finish(ended: Bool) throws -> Int64 {
        if !isFinished {
            try writeCompletePictures(ending: ended)
            try writeSound(final: true)
            isFinished = true
        }
        do {
            for index in 0..<(hasVideo && audioTimeBase != nil ? 2 : 1) { _ = try writer.endStream(index) }
            try writer.finish()
        } catch {
            writer.abandon()
            unlink(partial)
            throw error
        }
        let failure = FileSystem.moveIntoPlace(partial, path)
        guard failure == 0 else {
            unlink(partial)
            throw ReelError.runtime("\(path): cannot put the movie in place (\(String(cString: strerror(failure))))")
        }
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Bytes that may still be written before the free space falls under the floor (MovieWriter's measure).
    var freeSpaceHeadroom: Int64 { writer.freeSpaceHeadroom() }
    /// Reads the free space again (after files were deleted).
    func refreshDiskSpace() { writer.refreshDiskSpace() }

    /// An empty packet for the next reference (one the writer has emptied, when there is one).
    func emptyPacket() -> Packet {
        guard let packet = spare.popLast() else { return Packet() }
        packet.unref()
        return packet
    }

    /// Seconds the file holds, and its pictures, as the writer placed them (a limit may have refused the last
    /// ones): what a reader of the file finds.
    var seconds: Double { writer.writtenSeconds(0) }
    var videoFrames: Int { hasVideo ? writer.writtenPackets[0] : 0 }
}
