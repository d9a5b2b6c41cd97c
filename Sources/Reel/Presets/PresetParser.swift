import FoundationEssentials
import Glibc

/// Turns preset JSON into a validated Preset. Unknown keys and bad values are errors naming the file and field.
enum PresetParser {
    static func parse(_ data: Data, source: String) throws -> Preset {
        let root = try JSONFields.parse(data, source: source)
        try root.rejectUnknownKeys(allowed: ["name", "description", "video", "audio"])
        let video = try root.nested("video")
        try video.rejectUnknownKeys(allowed: ["size", "sizePolicy", "fps", "codec", "speedPreset", "x264Preset", "crf",
                                              "bitrate", "maxrate", "bufsize", "profile", "keyframeInterval", "bFrames", "latency", "filters", "overlays"])
        let audio = try root.nested("audio")
        try audio.rejectUnknownKeys(allowed: ["sampleRate", "channels", "bitrate"])

        let sizeText = try video.string("size")
        guard let size = parseSize(sizeText) else {
            throw video.fail("size", "'\(sizeText)' is not WIDTHxHEIGHT with even numbers from 16 to 7680 (e.g. \"1280x720\")")
        }
        let codec = try video.choice("codec", default: VideoCodec.default)
        let speedPreset = try speedPreset(of: video, codec: codec)
        let profile = try video.string("profile")
        guard codec.profiles.contains(profile) else {
            let reason = codec == .hevc ? " (Reel encodes 8-bit 4:2:0 pictures, which HEVC's Main profile carries)" : ""
            throw video.fail("profile", "'\(profile)' is not one of \(codec.profiles.joined(separator: ", ")) for \(codec.rawValue)\(reason)")
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
        if !codec.profileAllowsBFrames(profile), let bFrames, bFrames > 0 {
            throw video.fail("bFrames", "\(bFrames) B-frames exceed the baseline profile, which has none: use 0, or profile main or high")
        }
        let latency = try video.choice("latency", default: Preset.Latency.normal)
        if latency == .low, let bFrames, bFrames > 0 {
            throw video.fail("bFrames", "\(bFrames) B-frames hold pictures back, which latency low does not: use 0, or latency normal")
        }
        let channels = try audio.integer("channels", in: 1...2)
        let sampleRate = try audio.integer("sampleRate", in: 8000...96000)
        guard Preset.aacSampleRates.contains(sampleRate) else {
            throw audio.fail("sampleRate", "\(sampleRate) Hz is not a rate AAC can carry: use one of \(Preset.aacSampleRates.map(String.init).joined(separator: ", "))")
        }
        let filters: [PictureFilterKind] = try (video.has("filters") ? video.strings("filters") : []).map { name in
            do { return try PictureFilterKind(parsing: name) } catch let error as ReelError { throw video.fail("filters", error.message) }
        }
        var preset = Preset(
            name: try root.string("name"),
            description: try root.optionalString("description") ?? "",
            video: Preset.Video(
                width: size.width, height: size.height,
                sizePolicy: try video.choice("sizePolicy", default: Preset.SizePolicy.exact),
                fps: try video.number("fps", in: Preset.frameRateRange),
                codec: codec, speedPreset: speedPreset, rateControl: rateControl, maxRate: maxRate, bufferSize: bufferSize,
                profile: profile,
                keyframeInterval: try video.integer("keyframeInterval", in: 1...1000),
                bFrames: bFrames, latency: latency),
            audio: Preset.Audio(
                sampleRate: sampleRate,
                channels: channels,
                bitRate: Int(try audio.byteCount("bitrate", in: 8000...512_000))))
        preset.video.filters = filters
        // An image's relative path is the preset file's folder's.
        let folder = URL(fileURLWithPath: source).deletingLastPathComponent().path
        preset.video.overlays = try (video.has("overlays") ? video.strings("overlays") : []).map { text in
            do { return try Overlay(parsing: text, relativeTo: folder) } catch let error as ReelError { throw video.fail("overlays", error.message) }
        }
        return preset
    }

    /// The encoder's speed preset: `speedPreset`, or for H.264 also `x264Preset` (its name before presets
    /// took a codec), not both.
    private static func speedPreset(of video: JSONFields, codec: VideoCodec) throws -> String {
        let key: String
        switch (video.has("speedPreset"), video.has("x264Preset")) {
        case (true, true): throw video.fail("x264Preset", "give speedPreset or x264Preset (its older name), not both")
        case (false, true):
            guard codec == .h264 else { throw video.fail("x264Preset", "is libx264's; for codec \(codec.rawValue) name it speedPreset") }
            key = "x264Preset"
        case (true, false): key = "speedPreset"
        case (false, false): throw video.fail("speedPreset", "missing (the encoder's speed: \(codec.speedPresets.joined(separator: ", ")))")
        }
        let name = try video.string(key)
        guard codec.speedPresets.contains(name) else {
            throw video.fail(key, "'\(name)' is not one of \(codec.speedPresets.joined(separator: ", "))")
        }
        return name
    }

    /// "1280x720" → (1280, 720); both even (4:2:0 chroma) and within what x264 accepts.
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (16...7680).contains(width), (16...4320).contains(height), width % 2 == 0, height % 2 == 0 else { return nil }
        return (width, height)
    }
}
