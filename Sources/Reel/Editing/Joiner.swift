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

/// Joins movies (the segments of one recording, takes of one preset, clips from elsewhere): each input's
/// pictures right after the one before's, copied packet for packet where its video is described as the first
/// input's, else encoded again to match it (scaled to its size, with its encoder's own options: the same
/// sample description); the sound of each input's span encoded once across the joins (JoinSound), so it runs
/// on without a gap or a repeat in every reader. Written under a hidden name and renamed into place.
public enum Joiner {
    public static func join(_ request: JoinRequest) throws -> JoinResult {
        guard request.inputs.count >= 2 else { throw ReelError.invalidInput("join needs at least two movies to join") }
        try EditedMovie.checkOutput(request.output, command: "join", role: "joined movie", inputs: request.inputs,
                                    overwrite: request.overwrite)
        let inputs = try request.inputs.map(JoinInput.init(path:))
        let (encodedAgain, encoding) = try conforming(inputs)
        let first = inputs[0].index.video.timeBase
        // Each input's place: its pictures from the end of the one before's.
        var videoStarts: [Int64] = [0]
        for input in inputs { videoStarts.append(videoStarts.last! + rescale(input.videoEnd, input.index.video.timeBase, first)) }
        let written = try write(inputs, videoStarts: videoStarts, encodedAgain: encodedAgain, encoding: encoding, to: request.output)
        let seconds = { (ticks: Int64) in Double(ticks) * first.doubleValue }
        let sounds = inputs.filter { $0.index.audio != nil }.count
        var notes: [String] = []
        if encodedAgain.contains(true) {
            let numbers = encodedAgain.indices.filter { encodedAgain[$0] }.map { String($0 + 1) }
            notes.append("the video of input\(numbers.count == 1 ? "" : "s") \(numbers.joined(separator: ", ")) is encoded again to match the first's (its size and encoder settings); the others' pictures are copied")
        }
        if sounds > 0 {
            notes.append("the sound is encoded again across the joins (AAC, one track)")
            if sounds < inputs.count {
                notes.append("\(inputs.count - sounds) input\(inputs.count - sounds == 1 ? " has" : "s have") no sound and \(inputs.count - sounds == 1 ? "is" : "are") silent")
            }
        }
        return JoinResult(output: request.output, inputs: inputs.count, starts: videoStarts.dropLast().map(seconds),
                          duration: seconds(videoStarts.last!), videoFrames: written.frames, audioSamples: written.samples.map(Int.init),
                          bytes: written.bytes, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
    }

    static func rescale(_ value: Int64, _ from: Rational, _ to: Rational) -> Int64 {
        from == to ? value : Timestamp(value: value, timeBase: from).rescaled(to: to).value
    }

    /// Whether each input's video is described as the first's (codec, size, parameter sets: its packets can
    /// follow the first's under its one sample description); those that are not are encoded again to match
    /// (`encoding`: the first's own encoder options, which must write its parameter sets). Throws when an input
    /// differs and the first's encoder settings are unknown.
    static func conforming(_ inputs: [JoinInput]) throws -> (encodedAgain: [Bool], encoding: TrimEncoding?) {
        let video = inputs[0].index.video
        let encodedAgain = inputs.map { input in
            let other = input.index.video
            return !(other.codecName == video.codecName && other.width == video.width && other.height == video.height
                     && other.extradata == video.extradata)
        }
        guard let odd = encodedAgain.firstIndex(of: true) else { return (encodedAgain, nil) }
        let encoding = TrimEncoding(stream: video, firstKeyframe: inputs[0].index.firstKeyframe)
        let other = inputs[odd].index.video
        guard encoding.matchesInput else {
            throw ReelError.invalidInput("\(inputs[odd].path): its video (\(other.codecName) \(other.width)x\(other.height)) is not encoded as \(inputs[0].path)'s (\(video.codecName) \(video.width)x\(video.height)), "
                                         + "and the first movie's encoder settings are unknown (not libx264's or libx265's), so it cannot be encoded again to match: transcode the movies to one preset first")
        }
        return (encodedAgain, encoding)
    }
}
