import FFmpegCore
import Foundation
import QuickTime
@testable import Reel
import ReelTestSupport
import Testing

/// HEVC presets (issue 14): x265 behind the same writer as x264. Every movie is tagged `hvc1`, decodes whole in
/// ffmpeg and GStreamer, and keeps what H.264 movies keep: fragments that start with a keyframe decodable on
/// its own, the regular index after a clean stop (FFmpeg's own for the same packets), the size limit, and a
/// trailer bound never below the moov written. (The built-in HEVC tiers record in RecordingTierTests.)
@Suite(.serialized) struct HEVCRecordingTests {
    private func record(_ output: String, preset: String, limits: RecordingLimits,
                        fragmentInterval: Double) async throws -> RecordingResult {
        var configuration = try FastRecording.configuration(output, preset: preset, limits: limits)
        configuration.fragmentInterval = fragmentInterval
        return try await FastRecording.record(configuration)
    }

    private func expectHvc1(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (codec, tag) = try TestInputs.videoCodecAndTag(path)
        #expect(codec == "hevc" && tag == "hvc1", "\(codec) tagged \(tag)", sourceLocation: sourceLocation)
        let problems = try CleanDecode.problems(in: path)
        #expect(problems.isEmpty, "ffmpeg: \(problems)", sourceLocation: sourceLocation)
    }

    /// The HEVC NAL unit types of each video keyframe, in decode order (the file stores 4-byte lengths).
    private func keyframeUnitTypes(_ path: String) throws -> [(seconds: Double, types: [UInt8])] {
        let input = try InputContext(url: path, formatName: nil)
        let video = try #require(input.bestStream(of: .video))
        let packet = Packet()
        var keyframes: [(seconds: Double, types: [UInt8])] = []
        while try input.read(into: packet) == .packet {
            guard packet.streamIndex == video.index, packet.isKeyframe else { continue }
            let bytes = packet.data
            var types: [UInt8] = []
            var at = 0
            while at + 5 <= bytes.count {
                let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                types.append((bytes[at + 4] >> 1) & 0x3F)
                at += 4 + length
            }
            keyframes.append((Double(packet.pts) * video.timeBase.doubleValue, types))
        }
        return keyframes
    }

    @Test func encoderSettingsAskForSelfContainedQuietKeyframes() throws {
        let settings = try PresetLibrary.preset(named: "1080p-hevc").videoEncoderSettings(colour: .unspecified)
        #expect(settings.codecName == "libx265")
        let options = Dictionary(settings.privateOptions.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        #expect(options["preset"] == "ultrafast" && options["profile"] == "main" && options["crf"] == "28.0")
        #expect(options["forced-idr"] == "1", "a forced keyframe must be an IDR, not a plain I-picture")
        let parameters = (options["x265-params"] ?? "").split(separator: ":").map(String.init)
        #expect(parameters.contains("open-gop=0") && parameters.contains("scenecut=0"), "\(parameters)")
        #expect(parameters.contains { $0.hasPrefix("log-level=") }, "\(parameters)")
        #expect(Preset.x265LogLevel(following: .quiet) == "none")
        // H.264 presets are as before.
        let h264 = try PresetLibrary.preset(named: "720p").videoEncoderSettings(colour: .unspecified)
        #expect(h264.codecName == "libx264" && h264.privateOptions.last == PrivateOption("x264-params", "scenecut=0"))
    }

    /// Plain, and fragmented then finalized (cut every half second, between x265's own keyframes at each
    /// second, so half the cuts fall on keyframes the engine forces).
    @Test(arguments: [0.0, 0.5])
    func recordsHvc1MoviesEveryReaderDecodes(fragmentInterval: Double) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/h.mov"
        let result = try await record(output, preset: try TestInputs.smallHEVCPreset(in: folder),
                                      limits: RecordingLimits(maxDuration: 3), fragmentInterval: fragmentInterval)
        #expect(result.recordedSuccessfully && result.stopReason == .maxDurationReached, "\(result.error ?? "")")
        try expectHvc1(output)
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == 90 && result.videoFrames == 90 && movie.width == 320 && movie.height == 240)
        #expect(movie.audioCodec == "aac" && abs(movie.audioDuration - 3) < 0.03, "audio \(movie.audioDuration) s")
        let gstreamer = try IndependentReaders.gstreamer(output)
        #expect(gstreamer.problems.isEmpty && gstreamer.videoFrames == 90, "GStreamer: \(gstreamer)")
        // x265's non-reference B-frames are marked (sdtp), as FFmpeg marks them.
        #expect(Atoms.movieBoxes(path: output).contains { $0.path.hasSuffix("stbl/sdtp") })

        let atoms = Atoms.topLevel(path: output)
        let moov = try #require(atoms.last { $0.type == "moov" })
        let bound = try TrailerReplay.bound(for: output)
        #expect(bound >= moov.size, "bound \(bound) below the real moov \(moov.size)")
        #expect(bound - moov.size < 512, "bound \(bound) is loose against \(moov.size)")

        guard fragmentInterval > 0 else { return }
        #expect(result.fragments == 6, "3 s at a fragment every half second")
        #expect(atoms.map(\.type) == ["ftyp", "mdat", "moov"], "\(atoms.map(\.type))")
        try FragmentedRecordingTests.expectIndexMatchesFFmpeg(output, folder: folder)
        // Every cut starts with an IDR picture (types 19, 20), never x265's open-GOP CRA (21), so each
        // fragment decodes on its own.
        let keyframes = try keyframeUnitTypes(output)
        for half in 0 ..< 6 {
            let time = Double(half) * 0.5
            let keyframe = keyframes.first { abs($0.seconds - time) < 0.001 }
            #expect(keyframe != nil, "no keyframe at \(time) s: \(keyframes.map(\.seconds))")
        }
        for keyframe in keyframes {
            #expect(keyframe.types.contains { $0 == 19 || $0 == 20 } && !keyframe.types.contains(21),
                    "keyframe at \(keyframe.seconds) s has NAL units \(keyframe.types)")
        }
    }

    @Test(arguments: [0.0, 1.0])
    func maxSizeHoldsAndTheFileDecodes(fragmentInterval: Double) async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/s.mov"
        let limit: Int64 = 100_000
        let result = try await record(output, preset: try TestInputs.smallHEVCPreset(in: folder),
                                      limits: RecordingLimits(maxFileSize: limit), fragmentInterval: fragmentInterval)
        #expect(result.stopReason == .maxFileSizeReached && result.recordedSuccessfully, "\(result.error ?? "")")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64)
        #expect(size == result.bytes && size <= limit, "file \(size) against the limit \(limit)")
        #expect(Double(size) >= 0.9 * Double(limit), "file \(size) uses under 90 % of \(limit)")
        try expectHvc1(output)
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == result.videoFrames && movie.videoFrames > 30, "\(movie.videoFrames) decoded")
        let gstreamer = try IndependentReaders.gstreamer(output)
        #expect(gstreamer.problems.isEmpty && gstreamer.videoFrames == movie.videoFrames, "GStreamer: \(gstreamer)")
    }

    @Test func transcodesToHEVC() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "\(folder)/in.mp4"
        try TestInputs.movie(source, seconds: 2, size: "640x480")
        let output = "\(folder)/out.mov"
        let result = try await Transcoder.transcode(.init(inputPath: source, outputPath: output,
                                                          preset: PresetLibrary.preset(named: TestInputs.smallHEVCPreset(in: folder))))
        #expect(result.stopReason == .inputEnded && result.recordedSuccessfully, "\(result.error ?? "")")
        try expectHvc1(output)
        let movie = try MediaInspection(path: output)
        #expect(movie.videoFrames == 60 && movie.width == 320 && movie.height == 240 && movie.audioCodec == "aac")
    }
}

/// The configuration record size the trailer bound counts is the one the mov muxer writes, for x264's
/// High and Baseline headers and x265's (whose SEI of its settings the record keeps). (The Annex B split
/// itself is unit-tested in QuickTimeTests.)
@Suite struct CodecConfigurationRecordTests {
    @Test(arguments: ["352x288", "low", "1080p-hevc"])
    func recordSizeIsWhatTheMuxerStores(presetName: String) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preset = try PresetLibrary.preset(named: presetName)
        let encoder = try Encoder(video: preset.videoEncoderSettings(colour: .unspecified), globalHeader: true)
        let codec = Codec(encoder.codecIdentifier)
        let path = "\(folder)/header.mov"
        let output = try OutputContext(path: path, formatName: "mov")
        try output.addStream(for: encoder, codecTag: CodecConfigurationRecord.sampleEntryTag(forCodec: codec)?.description)
        // A fragmented movie's moov, with the sample description, is written with the header.
        try output.writeHeader(options: MovieFragmenter.muxerOptions)
        try output.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let type = try #require(CodecConfigurationRecord.boxType(forCodec: codec))
        let at = try #require(BoxReader.firstOccurrence(of: type, in: bytes, from: 0)) - 4
        let stored = Int(BigEndian.uint32(bytes, at: at)) - 8
        #expect(CodecConfigurationRecord.size(codec: codec, extradata: encoder.extradata) == stored, "\(presetName): \(type)")
        #expect(TrackDescription(encoder).storedHeaderSize == stored)
        if codec == .hevc {
            #expect(BoxReader.firstOccurrence(of: "hvc1", in: bytes, from: 0) != nil)
            #expect(BoxReader.firstOccurrence(of: "hev1", in: bytes, from: 0) == nil)
        }
    }
}
