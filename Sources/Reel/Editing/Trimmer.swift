import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime

/// How a trim treats the ends of the span (see TrimPlan).
public enum TrimMode: String, Sendable, Codable, CaseIterable {
    /// Frame-exact, re-encoding only the groups of pictures the ends fall in (not built yet).
    case smart
    /// Frame-exact, every kept picture encoded again (not built yet).
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
        guard request.mode == .keyframes else {
            throw ReelError.invalidInput("trim: only cuts at keyframes are built so far (--keyframes); smart and --exact trims are not")
        }
        for (name, value) in [("--from", request.from), ("--to", request.to)] where !timeRange.contains(value) {
            throw ReelError.invalidInput("\(name) \(value) is out of range: use 0 to \(NumberText.plain(timeRange.upperBound)) seconds")
        }
        guard request.from < request.to else {
            throw ReelError.invalidInput("--from \(NumberText.plain(request.from)) is not before --to \(NumberText.plain(request.to)): give a span that holds a picture")
        }
        try checkOutput(request)
        let input = try open(request.input)
        let index = try TrackIndex(input, path: request.input)
        if let audio = index.audio, audio.codecName != "aac" {
            throw ReelError.invalidInput("the sound of \(request.input) is \(audio.codecName): trim copies AAC sound only so far")
        }
        let video = index.video.timeBase
        let origin = index.videoSamples.map(\.presentationTime).min() ?? 0
        let plan: TrimPlan
        do {
            plan = try TrimPlan(samples: index.videoSamples, from: ticks(request.from, video), to: ticks(request.to, video), mode: request.mode)
        } catch .emptySpan(let trackEnd) {
            throw ReelError.invalidInput("--from \(NumberText.plain(request.from)) is past the end of \(request.input) (its pictures end at \(NumberText.plain(seconds(trackEnd, video))) s)")
        } catch {
            throw ReelError.invalidInput("\(request.input): its video does not start with a keyframe; trim cannot copy it")
        }
        let start = seconds(plan.firstPicture + origin, video), end = seconds(plan.end + origin, video)
        let sound = index.audio.flatMap { audio in
            AudioTrimPlan(frames: index.audioSamples, start: ticks(start, audio.timeBase), end: ticks(end, audio.timeBase))
        }
        let copy = CopiedSpan(video: plan.copied ?? 0..<0, videoShift: plan.firstPicture + origin, audio: sound,
                              audioFirst: sound.map { index.audioSamples[$0.frames.lowerBound].presentationTime } ?? 0)
        let written = try write(copy, from: request.input, index: index, to: request.output)
        return TrimResult(output: request.output, mode: plan.mode, requestedFrom: request.from, requestedTo: request.to,
                          start: start, end: end, duration: end - start, videoFrames: written.frames,
                          copiedFrames: written.frames, reencodedFrames: 0, audioSamples: sound.map { Int($0.duration) },
                          bytes: written.bytes, note: note(plan, request, start: start, end: end, leftOut: leftOut(input, index)))
    }

    private static func note(_ plan: TrimPlan, _ request: TrimRequest, start: Double, end: Double, leftOut: String?) -> String? {
        var notes = [plan.note, leftOut].compactMap { $0 }
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

    private static func open(_ path: String) throws -> InputContext {
        guard !FileSystem.isFolder(path) else { throw ReelError.invalidInput("\(path) is a folder: give trim a movie") }
        do {
            return try InputContext(url: path, formatName: nil)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("cannot read \(path): \(error.inputProblem); check the path and that it is a movie")
        }
    }

    /// The output: a .mov name, not the input, checked as every command's outputs are (`OutputPlan`: its folder,
    /// its name's length, no folder or device there, neither it nor its hidden name an input, new unless
    /// overwriting) before anything is written.
    private static func checkOutput(_ request: TrimRequest) throws {
        guard request.output.lowercased().hasSuffix(".mov") else {
            throw ReelError.invalidInput("\(request.output): trim writes QuickTime movies; give OUTPUT a name ending in .mov")
        }
        if FileManager.default.fileExists(atPath: request.output) && FileSystem.isSameFile(request.input, request.output) {
            throw ReelError.invalidInput("\(request.output) is the input: give the trimmed movie another name")
        }
        var plan = OutputPlan()
        plan.addMovie(request.output, segmentation: nil, writesHidden: true, role: "trimmed movie")
        plan.inputs = [request.input]
        try plan.check(overwrite: request.overwrite)
    }
}
