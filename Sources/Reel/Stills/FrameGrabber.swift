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
        guard let stream = input.bestStream(of: .video) else {
            throw ReelError.invalidInput("\(inputPath) has no video stream")
        }
        let frames: DecodingFrameSource
        do {
            frames = try DecodingFrameSource(input: input, streamIndexes: [stream.index])
        } catch {
            throw ReelError.invalidInput("cannot decode the video of \(inputPath): \(error)")
        }
        let start = stream.startTime ?? 0
        let target = start + Timestamp(value: Int64((seconds * 1_000_000).rounded()), timeBase: Rational(1, 1_000_000))
            .rescaledDown(to: stream.timeBase).value
        let duration = input.durationSeconds ?? stream.durationSeconds
        if let duration, seconds >= duration {
            throw ReelError.invalidInput(
                "--at \(seconds) is past the end of \(inputPath), which lasts \(String(printf: "%.3f", duration)) s")
        }
        if seconds > 0 { try frames.seek(streamIndex: stream.index, toKeyframeBefore: target) }
        let shown = try frameShown(at: target, in: frames)
        guard let shown else {
            throw ReelError.invalidInput("\(inputPath) has no picture at \(seconds) s (its video ends earlier)")
        }
        try StillImageWriter.write(shown, rotation: stream.rotationDegrees, to: still)
    }

    /// The last decoded picture whose time is at or before `target`, provided the next one starts after it.
    private static func frameShown(at target: Int64, in frames: DecodingFrameSource) throws -> Frame? {
        var candidate: Frame? = nil
        var decoded = Frame()
        var lastStep: Int64 = 0
        while try frames.next(into: decoded) {
            let time = decoded.bestEffortTimestamp
            if time != Timestamp.noValue, time > target {
                // The first frame starting after the target ends the candidate's interval (or, with no
                // candidate, the target fell before the first frame: show the first one).
                return candidate ?? decoded
            }
            if let previous = candidate?.bestEffortTimestamp, time != Timestamp.noValue { lastStep = time - previous }
            let spare = candidate ?? Frame()
            candidate = decoded
            decoded = spare
        }
        // The end: the last frame holds the target if the target lies within its duration.
        guard let candidate else { return nil }
        let step = candidate.duration > 0 ? candidate.duration : lastStep
        if step > 0 && candidate.bestEffortTimestamp + step <= target { return nil }
        return candidate
    }
}
