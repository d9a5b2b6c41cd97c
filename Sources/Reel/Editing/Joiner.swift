import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime

/// What to join: `inputs`, one after another, into `output` (a QuickTime movie).
public struct JoinRequest: Sendable {
    public var inputs: [String]
    public var output: String
    public var overwrite: Bool

    public init(inputs: [String], output: String, overwrite: Bool = false) {
        self.inputs = inputs
        self.output = output
        self.overwrite = overwrite
    }
}

/// What a join wrote: where each input starts on the joined timeline, the pictures and sound samples presented.
public struct JoinResult: Sendable, Codable, Equatable {
    public var output: String
    public var inputs: Int
    /// Seconds on the joined timeline where each input begins.
    public var starts: [Double]
    public var duration: Double
    public var videoFrames: Int
    /// Sound samples presented (nil without sound).
    public var audioSamples: Int?
    public var bytes: Int64
    public var note: String?
}

/// Joins movies encoded alike (the segments of one recording, takes of one preset): every picture copied
/// packet for packet, each input's right after the one before, and the sound of each input's span encoded
/// once across the joins (JoinSound), so it runs on without a gap or a repeat in every reader. Inputs whose
/// video is described differently are refused with one line. Written under a hidden name and renamed into place.
public enum Joiner {
    public static func join(_ request: JoinRequest) throws -> JoinResult {
        guard request.inputs.count >= 2 else { throw ReelError.invalidInput("join needs at least two movies to join") }
        guard request.output.lowercased().hasSuffix(".mov") else {
            throw ReelError.invalidInput("\(request.output): join writes QuickTime movies; give OUTPUT a name ending in .mov")
        }
        for input in request.inputs where FileManager.default.fileExists(atPath: request.output) && FileSystem.isSameFile(input, request.output) {
            throw ReelError.invalidInput("\(request.output) is one of the inputs (\(input)): give the joined movie another name")
        }
        var outputs = OutputPlan()
        outputs.addMovie(request.output, segmentation: nil, writesHidden: true, role: "joined movie")
        outputs.inputs = request.inputs
        try outputs.check(overwrite: request.overwrite)
        let inputs = try request.inputs.map(JoinInput.init(path:))
        try checkAlike(inputs)
        let first = inputs[0].index.video.timeBase
        // Each input's place: its pictures from the end of the one before's.
        var videoStarts: [Int64] = [0]
        for input in inputs { videoStarts.append(videoStarts.last! + rescale(input.videoEnd, input.index.video.timeBase, first)) }
        let written = try write(inputs, videoStarts: videoStarts, to: request.output)
        let seconds = { (ticks: Int64) in Double(ticks) * first.doubleValue }
        let sounds = inputs.filter { $0.index.audio != nil }.count
        return JoinResult(output: request.output, inputs: inputs.count, starts: videoStarts.dropLast().map(seconds),
                          duration: seconds(videoStarts.last!), videoFrames: written.frames, audioSamples: written.samples.map(Int.init),
                          bytes: written.bytes,
                          note: sounds == 0 ? nil : "the sound is encoded again across the joins (AAC, one track); the pictures are copied"
                                + (sounds < inputs.count ? "; \(inputs.count - sounds) input\(inputs.count - sounds == 1 ? " has" : "s have") no sound and \(inputs.count - sounds == 1 ? "is" : "are") silent" : ""))
    }

    static func rescale(_ value: Int64, _ from: Rational, _ to: Rational) -> Int64 {
        from == to ? value : Timestamp(value: value, timeBase: from).rescaled(to: to).value
    }

    /// Every input's video is described as the first's (codec, size, parameter sets): their packets can follow
    /// each other under its one sample description.
    static func checkAlike(_ inputs: [JoinInput]) throws {
        let video = inputs[0].index.video
        for input in inputs.dropFirst() {
            let other = input.index.video
            guard other.codecName == video.codecName, other.width == video.width, other.height == video.height,
                  other.extradata == video.extradata else {
                throw ReelError.invalidInput("\(input.path): its video (\(other.codecName) \(other.width)x\(other.height)) is not encoded as \(inputs[0].path)'s (\(video.codecName) \(video.width)x\(video.height))"
                                             + "; join copies movies encoded alike (segments of one recording, takes of one preset): transcode it to match first")
            }
        }
    }
}
