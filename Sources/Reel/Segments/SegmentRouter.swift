/// One of the files a movie's packets go to: where it begins and ends on the movie's timeline, and whether
/// its tracks have ended. MovieSegment is the real one; the unit tests use a file that records its packets.
protocol SegmentFile: AnyObject {
    var start: SegmentBoundaries.Boundary { get }
    /// Where the next file begins, once the movie has committed to it.
    var end: SegmentBoundaries.Boundary? { get set }
    /// No more video (or audio) packets will come to this file.
    var videoEnded: Bool { get set }
    var audioEnded: Bool { get set }
}

/// Where a movie's packets go: the files open at once, oldest first. The last takes the audio and new
/// pictures; an older one stays open until the video encoder has given out its last pictures (with a closed
/// group of pictures, every picture before a boundary's keyframe leaves the encoder before it). A video
/// packet goes to the file whose range holds its time; the files before it then get no more video. Pure
/// bookkeeping, unit-tested in SegmentRouterTests.
struct SegmentRouter<File: SegmentFile> {
    private(set) var open: [File] = []

    /// A file begins (at the end committed for the one before it).
    mutating func add(_ file: File) { open.append(file) }

    /// The file that takes new pictures and whose end is still to come.
    var current: File? { open.last }

    /// The oldest file still taking audio (the audio of a file the video has left is finished first).
    var audioFile: File? { open.first { !$0.audioEnded } }

    /// Where a video packet with presentation time `slot` goes, and the files before it whose video ends with
    /// it (their video streams are to be ended now). Nil when it is past every file's end (a limit cut the
    /// movie there): it is dropped.
    mutating func routeVideo(slot: Int64) -> (file: File, isLater: Bool, ended: [File])? {
        guard let position = open.firstIndex(where: { $0.end == nil || slot < $0.end!.slot }) else { return nil }
        var ended: [File] = []
        for earlier in open[..<position] where !earlier.videoEnded {
            earlier.videoEnded = true
            ended.append(earlier)
        }
        return (open[position], position > 0, ended)
    }

    /// One file's part of an AAC packet: its time in the file and its duration there (cut at the file's end),
    /// and whether it is the file's last.
    struct AudioPart {
        var file: File
        var pts: Int64
        var duration: Int64
        /// Samples of the file's own span the part plays (none for the frame before its start).
        var samples: Int64
        var isLast: Bool
    }

    /// Where an AAC packet of the movie's one encoder goes, covering samples `pts` ..< `pts + duration` of the
    /// movie's timeline: every file still taking audio whose span it overlaps, and the file that begins in the
    /// frame after it. A file's sound starts with the frame before the one holding its first sample, since a
    /// frame decodes from the overlap with the one before it; the file's edit list trims what comes before its
    /// start, as it trims an encoder's priming (the first file's first frame is that priming). A file's last
    /// frame ends at its end (the rest of it plays in the next file). Files whose audio ended are skipped.
    func routeAudio(pts: Int64, duration: Int64, frameSize: Int64) -> [AudioPart] {
        var parts: [AudioPart] = []
        for file in open where !file.audioEnded {
            let start = file.start.sample
            guard pts + duration > start - frameSize else { continue }
            if let end = file.end?.sample {
                guard pts < end else { continue }
                let cut = min(duration, end - pts)
                parts.append(AudioPart(file: file, pts: pts - start, duration: cut, samples: max(0, pts + cut - max(pts, start)),
                                       isLast: pts + duration >= end))
            } else {
                parts.append(AudioPart(file: file, pts: pts - start, duration: duration,
                                       samples: max(0, pts + duration - max(pts, start)), isLast: false))
            }
        }
        return parts
    }

    /// The files, other than the last, whose video and audio have both ended: they are finalized, oldest first.
    mutating func takeFinished() -> [File] {
        var finished: [File] = []
        while open.count > 1, open[0].videoEnded, open[0].audioEnded { finished.append(open.removeFirst()) }
        return finished
    }

    /// Every file still open, oldest first (the end of the movie).
    mutating func takeAll() -> [File] {
        defer { open.removeAll() }
        return open
    }
}
