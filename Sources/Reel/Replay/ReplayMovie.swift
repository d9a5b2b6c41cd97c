import FFmpegCore
import FoundationEssentials
import Glibc

/// Writes a replay's packets to a regular movie (the movie's own writer: the same interleaving, the same
/// edit lists, the same free-space floor), under a hidden name renamed into place once it is complete.
enum ReplayMovie {
    /// `packets`: video then audio, each in decode order, with stream indices and times set.
    static func write(_ packets: [Packet], streams: [StreamParameters], rotation: DisplayTurn, to path: String,
                      minFreeBytes: Int64, overwrite: Bool) throws -> ReplaySave {
        let partial = PartialName.path(for: path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var written = false
        defer { if !written { unlink(partial) } }
        let writer = try MovieWriter(path: partial, streams: streams, rotation: rotation,
                                     limits: RecordingLimits(minFreeDiskSpace: minFreeBytes), folder: folder)
        var save = ReplaySave(path: path, requestedSeconds: nil, seconds: 0, start: 0, end: 0, requestedAt: nil, videoFrames: 0, audioSamples: 0,
                              bytes: 0, milliseconds: 0)
        do {
            try writer.start()
            // By decode time across the streams, as the movie's own packets come (the writer interleaves).
            for packet in packets {
                if case .limitReached(let reason) = try writer.submit(packet) { throw limitError(reason, path: path) }
            }
            for index in streams.indices {
                if case .limitReached(let reason) = try writer.endStream(index) { throw limitError(reason, path: path) }
            }
            try writer.finish()
            if let reason = writer.stopReason { throw limitError(reason, path: path) }
        } catch {
            writer.abandon()
            if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace {
                throw ReelError(.diskFull, "save-replay \(path): the disk filled while writing it; nothing was kept")
            }
            throw error
        }
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            throw ReelError(.outputExists, "\(path) appeared while the replay was written: it was left as it is; choose another name")
        }
        let failure = FileSystem.moveIntoPlace(partial, path)
        guard failure == 0 else {
            throw ReelError.runtime("save-replay \(path): cannot put the movie in place (\(String(cString: strerror(failure))))")
        }
        written = true
        var info = stat()
        if stat(path, &info) == 0 { save.bytes = Int64(info.st_size) }
        if let video = streams.firstIndex(where: { $0.mediaType == .video }) { save.videoFrames = writer.writtenPackets[video] }
        if let audio = streams.firstIndex(where: { $0.mediaType == .audio }) { save.audioSamples = writer.writtenEnd[audio] }
        return save
    }

    private static func limitError(_ reason: StopReason, path: String) -> ReelError {
        switch reason {
        case .diskSpaceLimitReached:
            return ReelError(.diskFull, "save-replay \(path): it would leave less free space than the recording's floor (--min-free); nothing was kept")
        case .diskFull:
            return ReelError(.diskFull, "save-replay \(path): the disk is full; nothing was kept")
        default:
            return ReelError.runtime("save-replay \(path): the movie stopped (\(reason.rawValue)); nothing was kept")
        }
    }
}

