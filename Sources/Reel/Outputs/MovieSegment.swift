import FFmpegCore
import FoundationEssentials
import Glibc

/// One file of a movie: the whole movie when it is not segmented, else one of its segments. It owns the
/// file's MovieWriter (the limits apply per file). The encoders are the movie's, shared by its segments: a
/// keyframe is forced where each begins, and the AAC frames run on across the boundaries, each file taking
/// the frames over its span plus the one before its start (SegmentRouter.routeAudio), so that it plays alone
/// exactly its own samples, without a click or a gap, and the files join without a seam.
final class MovieSegment: SegmentFile {
    /// 1, 2, 3 ... (1 for an unsegmented movie).
    let index: Int
    let outputPath: String
    /// Where the file is written until finalized: the output path itself when fragments keep it playable, else
    /// a hidden name beside it.
    let writingPath: String
    let start: SegmentBoundaries.Boundary
    /// Where the next segment begins, once the movie has committed to it: later pictures go there.
    var end: SegmentBoundaries.Boundary?
    let writer: MovieWriter
    /// The AAC encoder that describes this file's sound (the movie's, or the owner's), for live streams.
    private(set) var audioStreamEncoder: Encoder?
    /// No more video (or audio) packets will come to this file.
    var videoEnded: Bool
    var audioEnded: Bool
    /// Sound tracks that gave their last packet for this file (its sound ends once all have).
    var audioTracksEnded = 0
    /// Samples of the file's span its sound holds.
    var audioSamplesEncoded: Int64 = 0
    /// Video packets handed to the file (some may still wait in its writer's queues).
    var videoPacketsReceived = 0
    /// A stop before the end deletes the file instead of finalizing it (Setup.discardsStoppedMovie).
    private let discardsWhenStopped: Bool

    /// What finalizing the file gave.
    struct Outcome {
        var result: SegmentResult
        var usable: Bool
        var videoSeconds: Double
        var fragments: Int
        var finalizationBytes: Int64?
        var stopReason: StopReason?
        var errorMessage: String?
    }

    /// Creates the file (its header is written). `audioEncoders`: the movie's, one per sound track (none for a
    /// follower of a shared AAC encoder, whose file's sound is described by the owner's).
    init(index: Int, outputPath: String, writingPath: String, start: SegmentBoundaries.Boundary, setup: MovieRecorder.Setup,
         videoEncoder: Encoder?, audioEncoders: [Encoder], limits: RecordingLimits) throws {
        self.index = index
        self.outputPath = outputPath
        self.writingPath = writingPath
        self.start = start
        discardsWhenStopped = setup.discardsStoppedMovie
        var encoders: [Encoder] = []
        if let videoEncoder { encoders.append(videoEncoder) }
        if case .follower(let shared, _)? = setup.sharedAudio, setup.hasAudio {
            // The owner's encoder describes the stream; this movie never encodes with it.
            let encoder = try shared.waitForAudioEncoder(segment: index)
            encoders.append(encoder)
            audioStreamEncoder = encoder
        } else if setup.hasAudio {
            encoders += audioEncoders
            audioStreamEncoder = audioEncoders.first
            if case .owner(let shared)? = setup.sharedAudio, let first = audioEncoders.first {
                shared.openedAudio(segment: index, encoder: first)
            }
        }
        videoEnded = videoEncoder == nil
        audioEnded = !setup.hasAudio
        // Separate tracks are named after their inputs (the track's handler and its udta name).
        let names = setup.audioTrackNames.isEmpty ? [] : Array(repeating: nil, count: videoEncoder == nil ? 0 : 1) + setup.audioTrackNames
        writer = try MovieWriter(path: writingPath, encoders: encoders, trackNames: names, rotation: setup.rotation,
                                 limits: limits, folder: setup.folder, fragmentInterval: setup.fragmentInterval,
                                 fragmentMemoryLimit: setup.fragmentMemoryLimit)
        do {
            try writer.start()
        } catch {
            writer.abandon()
            unlink(writingPath)
            throw error
        }
    }

    /// Writes the trailer (or the complete index), moves the file to its final name and says what it holds.
    /// `stopReason` is the movie's when this is its last file, nil for a segment the next one follows.
    func finalize(stopReason: StopReason?, errorMessage: String?, videoStream: Int, audioStream: Int,
                  sampleRate: Int) -> Outcome {
        var stopReason = stopReason
        var errorMessage = errorMessage
        var finalized = false
        if discardsWhenStopped && stopReason == .stopped {
            writer.abandon()
            unlink(writingPath)
            let result = SegmentResult(output: outputPath, index: index, start: 0, duration: 0, bytes: 0, videoFrames: 0,
                                       audioSamples: 0, recordedSuccessfully: false)
            return Outcome(result: result, usable: false, videoSeconds: 0, fragments: 0, finalizationBytes: nil,
                           stopReason: .stopped, errorMessage: "stopped before the end of its input: the incomplete movie was deleted")
        }
        do {
            try writer.finish(failed: stopReason == .failed)
            finalized = true
        } catch {
            writer.abandon()
            if stopReason != .failed { errorMessage = "\(error)" }
            if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace { stopReason = .diskFull }
            else if stopReason != .diskFull { stopReason = .failed }
        }
        // Report what the file holds, which a size limit may have cut shorter than what was encoded.
        let fileVideoFrames = videoStream >= 0 ? writer.writtenPackets[videoStream] : 0
        let videoSeconds = videoStream >= 0 ? writer.writtenSeconds(videoStream) : 0
        // A segment that ends because its own size was reached is cut like a movie at its size limit.
        let verdictReason = stopReason ?? (writer.stopReason == .maxFileSizeReached ? .maxFileSizeReached : nil)
        let verdict = MovieVerdict(.init(
            stopReason: verdictReason, finalized: finalized, hasVideo: videoStream >= 0, hasAudio: audioStream >= 0,
            fileVideoFrames: fileVideoFrames, audioSamplesEncoded: audioSamplesEncoded,
            audioEnd: audioStream >= 0 ? writer.writtenEnd[audioStream] : 0, cut: writer.stopReason != nil))
        let fileAudioSamples = verdict.fileAudioSamples
        if let problem = verdict.problem { errorMessage = problem }
        var bytes: Int64 = 0
        // A failure (an encoder's, the muxer's) mid-recording: a file written in place in fragments keeps what
        // was complete before it, finalized when the index could still be written, else as a fragmented movie
        // that plays up to its last fragment (AVFoundation keeps such a file and says it is not fully usable).
        let keptAfterFailure = !verdict.usable && stopReason == .failed && writingPath == outputPath
            && writer.fragmentCount > 0 && (fileVideoFrames > 0 || fileAudioSamples > 0)
        if keptAfterFailure {
            var info = stat()
            if stat(outputPath, &info) == 0 { bytes = Int64(info.st_size) }
            let seconds = max(videoSeconds, Double(fileAudioSamples) / Double(sampleRate))
            errorMessage = (errorMessage ?? "the recording failed")
                + "; what was recorded before it is kept in \(outputPath) (\(NumberText.plain((seconds * 100).rounded() / 100)) s, "
                + (finalized ? "finalized)" : "as a fragmented movie that plays up to its last fragment)")
        } else if verdict.usable {
            var info = stat()
            var moveFailure: Int32 = 0
            if stat(writingPath, &info) != 0 {
                moveFailure = errno
                if writingPath == outputPath, let size = writer.fileSizeInPlace, size > 0 {
                    // The file is complete where its folder went (moved or renamed while recording).
                    moveFailure = 0
                    info.st_size = Int(size)
                    errorMessage = "the movie is complete, but \(outputPath) is no longer there: its folder was moved, renamed or deleted while recording"
                }
            } else if writingPath == outputPath {
                // Written in place: its name went to the disk with its first fragment, unless it has none.
                FileSystem.syncFolder(containing: outputPath)
            } else {
                moveFailure = FileSystem.moveIntoPlace(writingPath, outputPath)
            }
            if moveFailure == 0 {
                bytes = Int64(info.st_size)
            } else {
                // The movie is complete; keep it where it is rather than lose it, and say where.
                stopReason = .failed
                errorMessage = moveFailure == ENOENT
                    ? "the finished movie could not be put in place: the folder of \(outputPath) was moved, renamed or deleted while recording (the movie is there under the hidden name \(URL(fileURLWithPath: writingPath).lastPathComponent))"
                    : "cannot move the finished movie to \(outputPath) (\(String(cString: strerror(moveFailure)))); it is at \(writingPath)"
            }
        } else {
            unlink(writingPath)
        }
        if let problem = writer.finalizationProblem { errorMessage = errorMessage ?? problem }
        let recorded = verdict.usable && bytes > 0
        let holds = recorded || (keptAfterFailure && bytes > 0)
        let audioSeconds = Double(fileAudioSamples) / Double(sampleRate)
        let result = SegmentResult(
            output: outputPath, index: index, start: 0, duration: holds ? max(videoSeconds, audioSeconds) : 0,
            bytes: bytes, videoFrames: holds ? fileVideoFrames : 0, audioSamples: holds ? fileAudioSamples : 0,
            recordedSuccessfully: recorded)
        return Outcome(result: result, usable: recorded, videoSeconds: videoSeconds, fragments: writer.fragmentCount,
                       finalizationBytes: recorded ? writer.finalizationBytes : nil, stopReason: stopReason,
                       errorMessage: errorMessage)
    }
}
