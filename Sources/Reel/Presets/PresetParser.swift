import FoundationEssentials
import Glibc

/// Turns preset JSON into a validated Preset. Unknown keys and bad values are errors naming the file and field.
enum PresetParser {
    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
                              "veryslow", "placebo"]
    static let profiles = ["baseline", "main", "high"]

    static func parse(_ data: Data, source: String) throws -> Preset {
        let root = try JSONFields.parse(data, source: source)
        try root.rejectUnknownKeys(allowed: ["name", "description", "video", "audio"])
        let video = try root.nested("video")
        try video.rejectUnknownKeys(allowed: ["size", "sizePolicy", "fps", "x264Preset", "crf", "bitrate", "maxrate",
                                              "bufsize", "profile", "keyframeInterval", "bFrames"])
        let audio = try root.nested("audio")
        try audio.rejectUnknownKeys(allowed: ["sampleRate", "channels", "bitrate"])

        let sizeText = try video.string("size")
        guard let size = parseSize(sizeText) else {
            throw video.fail("size", "'\(sizeText)' is not WIDTHxHEIGHT with even numbers from 16 to 7680 (e.g. \"1280x720\")")
        }
        let x264Preset = try video.string("x264Preset")
        guard x264Presets.contains(x264Preset) else {
            throw video.fail("x264Preset", "'\(x264Preset)' is not one of \(x264Presets.joined(separator: ", "))")
        }
        let profile = try video.string("profile")
        guard profiles.contains(profile) else {
            throw video.fail("profile", "'\(profile)' is not one of \(profiles.joined(separator: ", "))")
        }
        let rateControl: Preset.RateControl
        switch (video.has("crf"), video.has("bitrate")) {
        case (true, false): rateControl = .constantQuality(crf: try video.number("crf", in: 0...51))
        case (false, true): rateControl = .averageBitRate(Int(try video.byteCount("bitrate", in: 10_000...500_000_000)))
        case (true, true): throw video.fail("crf", "give either crf or bitrate, not both")
        case (false, false): throw video.fail("crf", "missing: give crf (constant quality) or bitrate")
        }
        let maxRate = try video.optionalByteCount("maxrate", in: 10_000...500_000_000).map { Int($0) }
        let bufferSize = try video.optionalByteCount("bufsize", in: 10_000...1_000_000_000).map { Int($0) }
        if maxRate != nil && bufferSize == nil { throw video.fail("bufsize", "required when maxrate is set") }

        let bFrames = try video.optionalInteger("bFrames", in: 0...16)
        // The profile is a ceiling: Baseline has no B-frames, and x264's own bframes setting would override it.
        if profile == "baseline", let bFrames, bFrames > 0 {
            throw video.fail("bFrames", "\(bFrames) B-frames exceed the baseline profile, which has none: use 0, or profile main or high")
        }
        let channels = try audio.integer("channels", in: 1...2)
        let sampleRate = try audio.integer("sampleRate", in: 8000...96000)
        guard Preset.aacSampleRates.contains(sampleRate) else {
            throw audio.fail("sampleRate", "\(sampleRate) Hz is not a rate AAC can carry: use one of \(Preset.aacSampleRates.map(String.init).joined(separator: ", "))")
        }
        return Preset(
            name: try root.string("name"),
            description: try root.optionalString("description") ?? "",
            video: Preset.Video(
                width: size.width, height: size.height,
                sizePolicy: try video.choice("sizePolicy", default: Preset.SizePolicy.exact),
                fps: try video.number("fps", in: Preset.frameRateRange),
                x264Preset: x264Preset, rateControl: rateControl, maxRate: maxRate, bufferSize: bufferSize,
                profile: profile,
                keyframeInterval: try video.integer("keyframeInterval", in: 1...1000),
                bFrames: bFrames),
            audio: Preset.Audio(
                sampleRate: sampleRate,
                channels: channels,
                bitRate: Int(try audio.byteCount("bitrate", in: 8000...512_000))))
    }

    /// "1280x720" → (1280, 720); both even (4:2:0 chroma) and within what x264 accepts.
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (16...7680).contains(width), (16...4320).contains(height), width % 2 == 0, height % 2 == 0 else { return nil }
        return (width, height)
    }
}
