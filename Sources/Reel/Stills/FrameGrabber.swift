import FFmpegCore
import FoundationEssentials
import Glibc

/// Takes the picture shown at a given time of any movie FFmpeg can read, as AVAssetImageGenerator with
/// zero tolerance and appliesPreferredTrackTransform: seek to the keyframe before, decode forward to the
/// frame whose display interval contains the time, and turn it upright.
public enum FrameGrabber {
    /// Times a grab may ask for, in seconds: beyond about 30 years, microsecond clocks come close to overflowing.
    public static let timeRange: ClosedRange<Double> = 0...1e9

    /// Writes the frame shown at `seconds` (from the start of the movie) of `inputPath` to `still`.
    public static func grab(inputPath: String, at seconds: Double = 0, to still: StillRequest) throws {
        guard FrameGrabber.timeRange.contains(seconds) else {
            throw ReelError.invalidInput("time \(seconds) is out of range: use 0 to \(NumberText.plain(FrameGrabber.timeRange.upperBound)) seconds")
        }
        try still.validate()
        let input: InputContext
        do {
            input = try InputContext(url: inputPath, formatName: nil)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("cannot read \(inputPath): \(error.inputProblem); check the path and that it is a movie")
        }
        // A file without video shows its cover art, as players do.
        guard let stream = input.bestStream(of: .video) ?? input.attachedPicture else {
            throw ReelError.invalidInput("\(inputPath) has no video stream")
        }
        // An HDR movie is tone-mapped to SDR like a transcode of it (or refused when this FFmpeg cannot).
        let colour = try ColourPlan(source: stream.colour, bitsPerComponent: stream.pixelFormat.bitsPerComponent,
                                    outputWidth: stream.width, outputHeight: stream.height, sourceName: inputPath)
        let frames: DecodingFrameSource
        do {
            frames = try DecodingFrameSource(input: input, streamIndexes: [stream.index])
        } catch {
            throw ReelError.invalidInput("cannot decode the video of \(inputPath): \(error)")
        }
        // Times count on the movie's timeline, as players show it: from where its earliest stream starts.
        let start = input.startTime?.rescaled(to: stream.timeBase).value ?? stream.startTime ?? 0
        // Wrapping arithmetic on a file's times here and below: a damaged file's timestamps can be anything.
        let target = start &+ Timestamp(value: Int64((seconds * 1_000_000).rounded()), timeBase: Rational(1, 1_000_000))
            .rescaledDown(to: stream.timeBase).value
        let duration = input.durationSeconds ?? stream.durationSeconds
        if let duration, seconds >= duration {
            throw ReelError.invalidInput(
                "time \(seconds) s is past the end of \(inputPath), which lasts \(String(printf: "%.3f", duration)) s")
        }
        let shown = try seekAndDecode(to: target, from: start, in: frames, stream: stream)
        guard let shown else {
            if frames.damagedFrames > 0 {
                throw ReelError.invalidInput(
                    "\(inputPath) has no readable picture at \(seconds) s: its data there is damaged or cut short; try an earlier time or a complete copy of the file")
            }
            throw ReelError.invalidInput("\(inputPath) has no picture at \(seconds) s (its video ends earlier)")
        }
        let picture = try colour.makeToneMapper()?.convert(shown) ?? shown
        try StillImageWriter.write(picture, rotation: stream.turn, to: still)
    }

    /// Seeks to a keyframe before `target` and decodes forward. Where a container's index is coarse or
    /// absent (MPEG-TS, PS), the seek can land past the keyframe the target needs, and the decoder then
    /// starts at a later one: when the first picture decoded comes after the target, seek again further back
    /// (1 s, 2 s, 4 s, ... before it), down to the start of the movie.
    private static func seekAndDecode(to target: Int64, from start: Int64, in frames: DecodingFrameSource,
                                      stream: StreamInfo) throws -> Frame? {
        let second = max(1, Timestamp(value: 1, timeBase: Rational(1, 1)).rescaled(to: stream.timeBase).value)
        var backoff: Int64 = 0
        // Doubling reaches any start within 64 tries; the last try decodes from the start whatever the times say.
        for attempt in 0..<64 {
            let seekPoint = target &- backoff
            let fromStart = seekPoint <= start || attempt == 63
            if target > start { try frames.seek(streamIndex: stream.index, toKeyframeBefore: fromStart ? Int64.min / 2 : seekPoint) }
            let (shown, firstTime) = try frameShown(at: target, in: frames)
            // Nothing decoded at all: the seek landed after the last keyframe; go back too.
            if fromStart || target <= start || (firstTime.map { $0 <= target } ?? false) { return shown }
            backoff = max(second, backoff.multipliedReportingOverflow(by: 2).overflow ? Int64.max / 2 : backoff * 2)
        }
        return nil
    }

    /// The last decoded picture whose time is at or before `target`, provided the next one starts after it,
    /// and the time of the first picture decoded. A picture without a timestamp (an AVI's last B-frames:
    /// the container stores none for them) follows the one before it by the step between the two before.
    private static func frameShown(at target: Int64, in frames: DecodingFrameSource) throws -> (Frame?, first: Int64?) {
        var first: Int64? = nil
        var candidate: Frame? = nil
        var candidateTime: Int64? = nil
        var decoded = Frame()
        var lastStep: Int64 = 0
        while try frames.next(into: decoded) {
            var time: Int64? = decoded.bestEffortTimestamp == Timestamp.noValue ? nil : decoded.bestEffortTimestamp
            if time == nil, let previous = candidateTime, lastStep > 0 { time = previous &+ lastStep }
            if first == nil, let time { first = time }
            if let time, time > target {
                // The first frame starting after the target ends the candidate's interval (or, with no
                // candidate, the target fell before the first frame: show the first one).
                return (candidate ?? decoded, first)
            }
            if let previous = candidateTime, let time { lastStep = time &- previous }
            let spare = candidate ?? Frame()
            candidate = decoded
            candidateTime = time
            decoded = spare
        }
        // The end: the last frame holds the target if the target lies within its duration.
        guard let candidate else { return (nil, first) }
        let step = candidate.duration > 0 ? candidate.duration : lastStep
        if let time = candidateTime, step > 0 && time &+ step <= target { return (nil, first) }
        return (candidate, first)
    }
}
