import FoundationEssentials

/// The options libx265 wrote into a stream (the SEI user data of its first keyframe: "x265 (build 199) - 3.5 …
/// - options: cpuid=1111039 frame-threads=1 wpp no-pmode … keyint=30 …"), and the `x265-params` that give
/// them back to libx265, so that it writes the stream's own parameter sets (VPS, SPS, PPS) again and a smart
/// trim's re-encoded pictures can sit between copied ones. What describes the machine or the run rather than
/// the stream (the CPU, threads, the input's size and rate, which FFmpeg sets, statistics files, the log) is
/// left out; names x265 does not take back are ignored by it (it warns, FFmpeg's log is off).
struct X265Options: Equatable {
    /// In the order x265 printed them: `name=value`, or a flag (`wpp`, `no-pmode`) with a nil value.
    let options: [(name: String, value: String?)]

    static func == (lhs: X265Options, rhs: X265Options) -> Bool {
        lhs.options.map(\.name) == rhs.options.map(\.name) && lhs.options.map(\.value) == rhs.options.map(\.value)
    }

    init?(text: String) {
        guard text.contains("x265"), let start = text.firstRange(of: "options: ") else { return nil }
        options = text[start.upperBound...].split(separator: " ").map { word in
            guard let equals = word.firstIndex(of: "=") else { return (String(word), nil) }
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
        guard !options.isEmpty else { return nil }
    }

    /// From a picture's payload: the x265 SEI's text, read up to its terminating zero.
    init?(payload: [UInt8]) {
        guard let text = EncoderBanner.text(startingWith: "x265 (build ", in: payload) else { return nil }
        self.init(text: text)
    }

    func value(_ name: String) -> String? { options.first { $0.name == name }?.value }

    /// The machine's, the run's or FFmpeg's: not the stream's.
    private static let leftOut: Set<String> = ["cpuid", "frame-threads", "numa-pools", "log-level", "input-res", "total-frames", "fps",
                                               "bitdepth", "input-csp", "annexb", "repeat-headers", "stats-write", "stats-read",
                                               "csv", "csv-log-level", "pools", "zone-count", "psnr", "ssim", "pmode", "pme",
                                               "lookahead-threads", "copy-pic", "svt", "field", "right", "bottom"]

    /// Printed with this value when off (unspecified), but turned on (a flag written into the SPS) by any value
    /// given back: chroma location, display window, colour description (2: unspecified).
    private static let offWhen: [String: String] = ["chromaloc": "0", "display-window": "0", "colorprim": "2", "transfer": "2",
                                                   "colormatrix": "2"]

    /// The `x265-params` value (name=value joined with ':'; a flag as name=1, `no-` ones as no-name=1; the
    /// values' own ':' written as ',', which x265 takes as well).
    var parameters: String {
        var taken: [String] = ["log-level=error"]
        for (name, value) in options {
            let bare = name.hasPrefix("no-") ? String(name.dropFirst(3)) : name
            guard !X265Options.leftOut.contains(bare), !bare.hasPrefix("analysis-"), !bare.hasPrefix("refine-"),
                  bare.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), value?.contains("=") != true,
                  X265Options.offWhen[bare] == nil || X265Options.offWhen[bare] != value else { continue }
            taken.append("\(name)=\(value.map { $0.replacing(":", with: ",") } ?? "1")")
        }
        return taken.joined(separator: ":")
    }
}
