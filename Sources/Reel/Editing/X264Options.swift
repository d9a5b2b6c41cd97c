import FoundationEssentials

/// The options libx264 wrote into a stream (the SEI user data of its first keyframe: "x264 - core 164 r3095 …
/// - options: cabac=1 ref=1 …"), and the `x264-params` that make libx264 write the same sequence and picture
/// parameter sets again: pictures encoded again by a smart trim then sit between copied ones under the
/// movie's one sample description. Options that do not shape the parameter sets are passed too where x264
/// takes them back (the same decisions inside the pictures as well); what it reports but does not take
/// (thread counts, the analysis bitmask, the quantiser matrix's number) is left out.
struct X264Options: Equatable {
    /// In the order x264 printed them.
    let options: [(key: String, value: String)]

    static func == (lhs: X264Options, rhs: X264Options) -> Bool {
        lhs.options.map(\.key) == rhs.options.map(\.key) && lhs.options.map(\.value) == rhs.options.map(\.value)
    }

    /// From the text after "options: " (space-separated key=value).
    init?(text: String) {
        guard let start = text.firstRange(of: "options: ") else { return nil }
        options = text[start.upperBound...].split(separator: " ").compactMap { word in
            guard let equals = word.firstIndex(of: "=") else { return nil }
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
        guard !options.isEmpty else { return nil }
    }

    /// From a picture's payload (a keyframe's NAL units): the x264 SEI's text, read up to its terminating zero.
    init?(payload: [UInt8]) {
        guard let text = EncoderBanner.text(startingWith: "x264 - core ", in: payload) else { return nil }
        self.init(text: text)
    }

    func value(_ key: String) -> String? { options.first { $0.key == key }?.value }

    /// Reported, not taken back by x264_param_parse (or decided by x264 itself from the others).
    private static let reportedOnly: Set<String> = ["threads", "lookahead_threads", "analyse", "cqm", "deadzone", "rc",
                                                    "crf_max", "chroma_qp_offset", "qpstep"]
    /// x264's parameter names where they differ from the reported ones.
    private static let renamed = ["ip_ratio": "ipratio", "pb_ratio": "pbratio", "keyint_min": "min-keyint", "me_range": "merange",
                                  "mixed_ref": "mixed-refs", "decimate": "dct-decimate"]
    /// Reported as numbers, taken back by name.
    private static let named = ["b_pyramid": ["none", "strict", "normal"], "direct": ["none", "spatial", "temporal", "auto"]]

    /// The `x264-params` value (key=value joined with ':').
    var parameters: String {
        var taken: [String] = []
        for (key, value) in options where !X264Options.reportedOnly.contains(key) {
            switch key {
            case "deblock":
                // enabled:alpha:beta
                let parts = value.split(separator: ":")
                taken.append(parts.first == "0" ? "no-deblock=1" : "deblock=\(parts.dropFirst().joined(separator: ","))")
            case "aq":
                // mode:strength
                let parts = value.split(separator: ":")
                taken.append("aq-mode=\(parts.first ?? "0")")
                if parts.count > 1 { taken.append("aq-strength=\(parts[1])") }
            case "psy_rd":
                taken.append("psy-rd=\(value.replacing(":", with: ","))")
            default:
                let name = X264Options.renamed[key] ?? key.replacing("_", with: "-")
                if let names = X264Options.named[key], let index = Int(value), names.indices.contains(index) {
                    taken.append("\(name)=\(names[index])")
                } else {
                    taken.append("\(name)=\(value)")
                }
            }
        }
        return taken.joined(separator: ":")
    }
}
