import FFmpegCore
import Foundation
@_spi(ReelTools) @testable import Reel
import Testing

@Suite struct PresetTests {
    @Test func builtInPresetsAllLoad() throws {
        #expect(PresetLibrary.builtInErrors.isEmpty, "\(PresetLibrary.builtInErrors)")
        let names = Set(PresetLibrary.builtInNames)
        for name in ["352x288", "640x480", "960x540", "720p", "1080p", "high", "medium", "low", "1080p-hevc", "high-hevc"] {
            #expect(names.contains(name), "missing preset \(name)")
        }
        for name in ["1080p-hevc", "high-hevc"] {
            let preset = try PresetLibrary.preset(named: name)
            #expect(preset.video.codec == .hevc && preset.video.profile == "main" && preset.video.width == 1920)
        }
        #expect(try PresetLibrary.preset(named: "high-hevc").video.sizePolicy == .deviceBest)
        #expect(try PresetLibrary.preset(named: "1080p").video.codec == .h264)
        let available = VideoCodec.allCases.filter { $0.isAvailable }
        #expect(available == VideoCodec.allCases, "Debian's FFmpeg has libx264 and libx265")
        #expect(try PresetLibrary.preset(named: "720p").video.width == 1280)
        #expect(try PresetLibrary.preset(named: "high").video.sizePolicy == .deviceBest)
        #expect(try PresetLibrary.preset(named: "low").video.size == "192x144")
        #expect(try PresetLibrary.preset(named: "medium").video.size == "480x360")
    }

    @Test func builtInPresetsMatchTheFilesInPresetsFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("presets")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == PresetLibrary.builtIn().count)
        for file in files {
            let preset = try PresetLibrary.load(path: folder.appendingPathComponent(file).path)
            #expect(try PresetLibrary.preset(named: preset.name) == preset)
        }
    }

    private func parse(_ json: String) throws -> Preset {
        try PresetParser.parse(Data(json.utf8), source: "custom.json")
    }

    private let valid = """
        {"name": "t", "video": {"size": "320x240", "fps": 25, "x264Preset": "veryfast", "crf": 23,
         "profile": "high", "keyframeInterval": 50}, "audio": {"sampleRate": 48000, "channels": 2, "bitrate": "96k"}}
        """

    @Test func parsesAValidPreset() throws {
        let preset = try parse(valid)
        #expect(preset.video.width == 320 && preset.video.fps == 25 && preset.audio.bitRate == 96000)
        #expect(preset.video.rateControl == .constantQuality(crf: 23))
        // A file from before presets took a codec: H.264, and x264Preset is the speed preset.
        #expect(preset.video.codec == .h264 && preset.video.speedPreset == "veryfast")
    }

    private var validHEVC: String {
        valid.replacingOccurrences(of: "\"x264Preset\": \"veryfast\"", with: "\"codec\": \"hevc\", \"speedPreset\": \"fast\"")
            .replacingOccurrences(of: "\"profile\": \"high\"", with: "\"profile\": \"main\"")
    }

    /// `latency: low` (720p-live) asks the encoder to hold no picture back: x264's and x265's zerolatency tune,
    /// right after the speed preset (which it refines); B-frames, which hold pictures back, are refused with it.
    @Test func lowLatencyPresetsTuneTheEncoder() throws {
        let live = try PresetLibrary.preset(named: "720p-live")
        #expect(live.video.latency == .low && live.video.width == 1280)
        let options = live.videoEncoderSettings(colour: .unspecified).privateOptions
        #expect(options.prefix(2) == [PrivateOption("preset", "superfast"), PrivateOption("tune", "zerolatency")])
        #expect(try PresetLibrary.preset(named: "720p").videoEncoderSettings(colour: .unspecified).privateOptions.allSatisfy { $0.key != "tune" })
        let low = valid.replacingOccurrences(of: "\"keyframeInterval\": 50", with: "\"keyframeInterval\": 50, \"latency\": \"low\"")
        #expect(try parse(low).video.latency == .low)
        #expect(try parse(valid).video.latency == .normal)
        let withBFrames = low.replacingOccurrences(of: "\"latency\": \"low\"", with: "\"latency\": \"low\", \"bFrames\": 2")
        #expect { try parse(withBFrames) } throws: { "\($0)".contains("B-frames hold pictures back") }
        let unknown = low.replacingOccurrences(of: "\"low\"", with: "\"ultra\"")
        #expect { try parse(unknown) } throws: { "\($0)".contains("latency") }
        // The encoder as x264 opened it: no B-frames (the default 720p has them).
        let encoder = try Encoder(video: live.videoEncoderSettings(colour: .unspecified), globalHeader: true)
        #expect(encoder.reorderedPictures == 0)
        let normal = try Encoder(video: try PresetLibrary.preset(named: "720p").videoEncoderSettings(colour: .unspecified), globalHeader: true)
        #expect(normal.reorderedPictures > 0)
    }

    @Test func parsesCodecsAndTheSpeedPreset() throws {
        let hevc = try parse(validHEVC)
        #expect(hevc.video.codec == .hevc && hevc.video.speedPreset == "fast" && hevc.video.profile == "main")
        let h264 = try parse(valid.replacingOccurrences(of: "\"x264Preset\"", with: "\"codec\": \"h264\", \"speedPreset\""))
        #expect(h264.video.codec == .h264 && h264.video.speedPreset == "veryfast")
    }

    @Test(arguments: [
        ("\"codec\": \"hevc\"", "\"codec\": \"vp9\"", "custom.json: video.codec: 'vp9' is not one of h264, hevc"),
        ("\"profile\": \"main\"", "\"profile\": \"high\"", "custom.json: video.profile: 'high' is not one of main for hevc"),
        ("\"profile\": \"main\"", "\"profile\": \"main10\"", "custom.json: video.profile: 'main10' is not one of main for hevc (Reel encodes 8-bit"),
        ("\"speedPreset\": \"fast\"", "\"x264Preset\": \"fast\"", "custom.json: video.x264Preset: is libx264's; for codec hevc name it speedPreset"),
        ("\"speedPreset\": \"fast\"", "\"speedPreset\": \"fast\", \"x264Preset\": \"fast\"", "custom.json: video.x264Preset: give speedPreset or x264Preset"),
        ("\"speedPreset\": \"fast\"", "\"speedPreset\": \"warp\"", "custom.json: video.speedPreset: 'warp' is not one of ultrafast"),
        ("\"speedPreset\": \"fast\", ", "", "custom.json: video.speedPreset: missing"),
    ])
    func rejectsBadHEVCPresetsNamingTheField(original: String, replacement: String, message: String) {
        let json = validHEVC.replacingOccurrences(of: original, with: replacement)
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect("\(error)".hasPrefix(message), "got: \(error)")
        }
    }

    @Test(arguments: [
        ("\"fps\": 25", "\"fps\": 25, \"colour\": 1", "custom.json: video.colour: unknown field"),
        ("\"fps\": 25", "\"fps\": \"fast\"", "custom.json: video.fps: expected a number, got \"fast\""),
        ("\"fps\": 25", "\"fps\": 0", "custom.json: video.fps: 0 is out of range"),
        ("\"size\": \"320x240\"", "\"size\": \"321x240\"", "custom.json: video.size:"),
        ("\"crf\": 23", "\"crf\": 23, \"bitrate\": \"1M\"", "custom.json: video.crf: give either crf or bitrate"),
        ("\"x264Preset\": \"veryfast\"", "\"x264Preset\": \"warp\"", "custom.json: video.x264Preset: 'warp' is not one of"),
        ("\"channels\": 2", "\"channels\": true", "custom.json: audio.channels: expected a number, got true"),
        ("\"bitrate\": \"96k\"", "\"bitrate\": \"lots\"", "custom.json: audio.bitrate: expected a number or a size"),
        ("\"name\": \"t\", ", "", "custom.json: name: missing"),
    ])
    func rejectsBadPresetsNamingTheField(original: String, replacement: String, message: String) {
        let json = valid.replacingOccurrences(of: original, with: replacement)
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect("\(error)".hasPrefix(message), "got: \(error)")
        }
    }

    @Test func rejectsMalformedJSON() {
        #expect(throws: ReelError.self) { try parse("{\"name\": ") }
    }

    @Test func unknownPresetNameListsTheChoices() {
        do {
            _ = try PresetLibrary.preset(named: "4k")
            Issue.record("accepted 4k")
        } catch {
            #expect("\(error)".contains("unknown preset '4k'") && "\(error)".contains("720p"))
        }
    }
}

@Suite struct ByteCountTests {
    @Test(arguments: [("100", 100), ("10K", 10_000), ("10k", 10_000), ("1.5M", 1_500_000), ("2G", 2_000_000_000),
                      ("1Ki", 1024), ("64Mi", 67_108_864), ("1Gi", 1_073_741_824), ("10MB", 10_000_000),
                      ("512KiB", 524_288), ("0", 0)])
    func parsesFFmpegSizes(text: String, bytes: Int64) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", "-5", "abc", "10X", "1.2.3M", "M", "1e5", "Ki"])
    func rejectsMalformedSizes(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }
}

@Suite struct DeviceSpecTests {
    @Test func parsesKindsTargetsAndOptions() throws {
        let camera = try DeviceSpec(parsing: "v4l2:/dev/video0?input_format=mjpeg&framerate=30")
        #expect(camera.kind == .v4l2 && camera.target == "/dev/video0")
        #expect(camera.option("input_format") == "mjpeg" && camera.option("framerate") == "30")
        #expect(camera.isPaced && camera.isDevice)
        #expect(try DeviceSpec(parsing: "alsa:hw:1,0").target == "hw:1,0")
        #expect(try DeviceSpec(parsing: "x11grab::99").target == ":99")
        let test = try DeviceSpec(parsing: "lavfi:testsrc2?realtime=0")
        #expect(!test.isPaced && !test.isDevice)
        #expect(try DeviceSpec(parsing: "lavfi:sine").isPaced)
        #expect(try !DeviceSpec(parsing: "file:clip.mp4").isPaced)
    }

    @Test(arguments: ["testsrc2", "webcam:/dev/video0", "v4l2:", "lavfi:testsrc2?realtime=2", "alsa:default?realtime=0",
                      "v4l2:/dev/video0?input_format"])
    func rejectsBadSpecs(text: String) {
        #expect(throws: ReelError.self) { try DeviceSpec(parsing: text) }
    }

    @Test func lavfiSourcesGetThePresetsSizeRateAndPacing() throws {
        let preset = try PresetLibrary.preset(named: "352x288")
        let paced = InputRecipe.make(for: try DeviceSpec(parsing: "lavfi:testsrc2"), role: .video, preset: preset)
        #expect(paced.url == "testsrc2=size=352x288:rate=30,realtime")
        let fast = InputRecipe.make(for: try DeviceSpec(parsing: "lavfi:sine?realtime=0"), role: .audio, preset: preset)
        #expect(fast.url == "sine=frequency=440:sample_rate=48000" && fast.options.isEmpty)
        let microphone = InputRecipe.make(for: try DeviceSpec(parsing: "alsa:default"), role: .audio, preset: preset)
        #expect(microphone.formatName == "alsa" && microphone.options.map(\.key) == ["sample_rate", "channels"])
    }

    @Test func cameraModeComesFromTheDevicesModes() throws {
        let preset = try PresetLibrary.preset(named: "720p")
        let modes = [VideoMode(pixelFormat: "YUYV", isCompressed: false, width: 1280, height: 720, fps: 10),
                     VideoMode(pixelFormat: "MJPG", isCompressed: true, width: 1280, height: 720, fps: 30)]
        let recipe = InputRecipe.make(for: try DeviceSpec(parsing: "v4l2:/dev/video7"), role: .video, preset: preset,
                                      cameraModes: { _ in modes })
        #expect(recipe.options.map { "\($0.key)=\($0.value)" } == ["input_format=mjpeg", "video_size=1280x720", "framerate=30"])
        let explicit = InputRecipe.make(for: try DeviceSpec(parsing: "v4l2:/dev/video7?input_format=yuyv422"), role: .video,
                                        preset: preset, cameraModes: { _ in modes })
        #expect(explicit.options.map(\.key) == ["input_format"])
    }
}

@Suite struct VideoModeSelectionTests {
    let modes = [
        VideoMode(pixelFormat: "YUYV", isCompressed: false, width: 640, height: 480, fps: 30),
        VideoMode(pixelFormat: "YUYV", isCompressed: false, width: 1280, height: 720, fps: 10),
        VideoMode(pixelFormat: "MJPG", isCompressed: true, width: 1280, height: 720, fps: 30),
        VideoMode(pixelFormat: "MJPG", isCompressed: true, width: 1920, height: 1080, fps: 30),
        VideoMode(pixelFormat: "MJPG", isCompressed: true, width: 2592, height: 1944, fps: 15),
    ]

    @Test func prefersTheModeThatReallyDeliversTheRate() {
        let mode = VideoModeSelection.choose(from: modes, width: 1280, height: 720, fps: 30, policy: .exact)
        #expect(mode?.pixelFormat == "MJPG" && mode?.width == 1280)
    }

    @Test func prefersUncompressedWhenBothDeliver() {
        let mode = VideoModeSelection.choose(from: modes, width: 640, height: 480, fps: 30, policy: .exact)
        #expect(mode?.pixelFormat == "YUYV")
    }

    @Test func fallsBackToTheClosestLargerMode() {
        let mode = VideoModeSelection.choose(from: modes, width: 960, height: 540, fps: 30, policy: .exact)
        #expect(mode?.width == 1280 && mode?.pixelFormat == "MJPG")
    }

    @Test func deviceBestTakesTheLargestUpTo1080p() {
        let mode = VideoModeSelection.choose(from: modes, width: 1920, height: 1080, fps: 30, policy: .deviceBest)
        #expect(mode?.width == 1920 && mode?.height == 1080)
        let small = [VideoMode(pixelFormat: "YUYV", isCompressed: false, width: 640, height: 480, fps: 30)]
        #expect(VideoModeSelection.choose(from: small, width: 1920, height: 1080, fps: 30, policy: .deviceBest)?.width == 640)
    }
}
