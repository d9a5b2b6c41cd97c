import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime

/// How a trim treats the ends of the span (see TrimPlan).
public enum TrimMode: String, Sendable, Codable, CaseIterable {
    /// Frame-exact, re-encoding only the groups of pictures the ends fall in; the groups between are copied.
    case smart
    /// Frame-exact, every kept picture encoded again.
    case exact
    /// Whole groups of pictures copied, from the keyframe at or before `from` to the end of the group holding
    /// the last picture before `to`: fast, inexact at both ends; the result says what it kept.
    case keyframes
}

/// What to cut: the span [from, to) of `input`'s timeline, in seconds, into `output` (a QuickTime movie).
public struct TrimRequest: Sendable {
    public var input: String
    public var output: String
    public var from: Double
    public var to: Double
    public var mode: TrimMode
    public var overwrite: Bool

    public init(input: String, output: String, from: Double, to: Double, mode: TrimMode = .smart, overwrite: Bool = false) {
        self.input = input
        self.output = output
        self.from = from
        self.to = to
        self.mode = mode
        self.overwrite = overwrite
    }
}

/// What a trim wrote. `start` and `end` are where the output's first picture and its end were on the input's
/// timeline (with `keyframes`, the groups' bounds around what was asked).
public struct TrimResult: Sendable, Codable, Equatable {
    public var output: String
    public var mode: TrimMode
    public var requestedFrom: Double
    public var requestedTo: Double
    public var start: Double
    public var end: Double
    public var duration: Double
    public var videoFrames: Int
    /// Pictures copied packet for packet, and pictures encoded again.
    public var copiedFrames: Int
    public var reencodedFrames: Int
    /// Sound samples presented (nil without sound).
    public var audioSamples: Int?
    public var bytes: Int64
    public var note: String?
}

/// Cuts a span out of a movie (`reel trim`, the library's trim): the pictures and sound of the span, with the
/// input's other properties (rotation, colour tags) kept. Written under a hidden name and renamed into place.
public enum Trimmer {
    /// The times `from` and `to` may take (those of a grab).
    public static let timeRange = FrameGrabber.timeRange

    public static func trim(_ request: TrimRequest) throws -> TrimResult {
        for (name, value) in [("--from", request.from), ("--to", request.to)] where !timeRange.contains(value) {
            throw ReelError.invalidInput("\(name) \(value) is out of range: use 0 to \(NumberText.plain(timeRange.upperBound)) seconds")
        }
        guard request.from < request.to else {
            throw ReelError.invalidInput("--from \(NumberText.plain(request.from)) is not before --to \(NumberText.plain(request.to)): give a span that holds a picture")
        }
        try EditedMovie.checkOutput(request.output, command: "trim", role: "trimmed movie", inputs: [request.input],
                                    overwrite: request.overwrite)
        let input = try TrackIndex.open(request.input, for: "trim")
        let index = try TrackIndex(input, path: request.input)
        if let audio = index.audio, audio.codecName != "aac" {
            throw ReelError.invalidInput("the sound of \(request.input) is \(audio.codecName): trim copies AAC sound only so far")
        }
        let video = index.video.timeBase
        let origin = index.videoSamples.map(\.presentationTime).min() ?? 0
        func plan(_ mode: TrimMode) throws -> TrimPlan {
            do {
                return try TrimPlan(samples: index.videoSamples, from: ticks(request.from, video), to: ticks(request.to, video), mode: mode)
            } catch .emptySpan(let trackEnd) {
                throw ReelError.invalidInput("--from \(NumberText.plain(request.from)) is past the end of \(request.input) (its pictures end at \(NumberText.plain(seconds(trackEnd, video))) s)")
            } catch {
                throw ReelError.invalidInput("\(request.input): its video does not start with a keyframe; trim cannot cut it")
            }
        }
        var chosen = try plan(request.mode)
        var notes = [chosen.note].compactMap { $0 }
        let encoding = chosen.mode == .keyframes ? nil : TrimEncoding(stream: index.video, firstKeyframe: index.firstKeyframe)
        if chosen.mode == .smart, let encoding, !encoding.matchesInput, chosen.head != nil || chosen.tail != nil {
            chosen = try plan(.exact)
            let why = ["h264", "hevc"].contains(index.video.codecName)
                ? "the input's encoder settings are unknown (not libx264's or libx265's)"
                : "the input's video is \(index.video.codecName), which trim encodes as H.264"
            notes.append("\(why): every kept picture is encoded again with \(encoding.summary)")
        }
        let start = seconds(chosen.firstPicture + origin, video), end = seconds(chosen.end + origin, video)
        let sound = index.audio.flatMap { audio in
            AudioTrimPlan(frames: index.audioSamples, start: ticks(start, audio.timeBase), end: ticks(end, audio.timeBase))
        }
        func span(_ plan: TrimPlan) -> CopiedSpan {
            CopiedSpan(video: plan.copied ?? 0..<0, head: plan.head, tail: plan.tail, encoding: encoding, videoShift: plan.firstPicture + origin,
                       audio: sound, audioFirst: sound.map { index.audioSamples[$0.frames.lowerBound].presentationTime } ?? 0)
        }
        let written: Written
        do {
            written = try write(span(chosen), from: request.input, index: index, to: request.output)
        } catch let failure as TrimSplice.Failure {
            // Re-encoded pictures could not join the copied ones: the span is encoded again whole.
            chosen = try plan(.exact)
            notes.append("\(failure.reason): every kept picture is encoded again with \(encoding?.summary ?? "")")
            written = try write(span(chosen), from: request.input, index: index, to: request.output)
        }
        if request.mode == .exact, let encoding { notes.append("every kept picture encoded again with \(encoding.summary)") }
        return TrimResult(output: request.output, mode: chosen.mode, requestedFrom: request.from, requestedTo: request.to,
                          start: start, end: end, duration: end - start, videoFrames: written.frames,
                          copiedFrames: written.copied, reencodedFrames: written.reencoded, audioSamples: sound.map { Int($0.duration) },
                          bytes: written.bytes, note: note(chosen, request, start: start, end: end, notes: notes + [leftOut(input, index)].compactMap { $0 }))
    }

    private static func note(_ plan: TrimPlan, _ request: TrimRequest, start: Double, end: Double, notes: [String]) -> String? {
        var notes = notes
        if plan.mode == .keyframes, start != request.from || end != request.to {
            notes.insert("cut at keyframes: from \(NumberText.plain(start)) s (asked \(NumberText.plain(request.from))) to \(NumberText.plain(end)) s (asked \(NumberText.plain(request.to)))", at: 0)
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// The input's tracks a trim does not copy (a second sound track, subtitles, data, cover art), said in the note.
    private static func leftOut(_ input: InputContext, _ index: TrackIndex) -> String? {
        let others = input.streams.filter { $0.index != index.video.index && $0.index != index.audio?.index }
        guard !others.isEmpty else { return nil }
        return "\(others.count) other track\(others.count == 1 ? "" : "s") of the input left out (only the video and the first sound are copied)"
    }

    static func ticks(_ seconds: Double, _ base: Rational) -> Int64 {
        Int64((seconds * Double(base.denominator) / Double(base.numerator)).rounded())
    }

    static func seconds(_ ticks: Int64, _ base: Rational) -> Double {
        Double(ticks) * Double(base.numerator) / Double(base.denominator)
    }
}
