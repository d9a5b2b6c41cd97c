import FFmpegCore
import Foundation
import QuickTime
@testable import Reel
import ReelTestSupport
import Testing

/// The x265 options an HEVC movie carries (in the SEI among its sample description's headers), given back to
/// libx265: the VPS, SPS and PPS it then writes are the movie's, byte for byte.
@Suite struct X265OptionsTests {
    static let text = "x265 (build 199) - 3.5+1-f0c1022b6:[Linux][GCC 12.2.0][64 bit] 8bit+10bit+12bit - H.265/HEVC codec - "
        + "options: cpuid=1111039 frame-threads=1 wpp no-pmode input-res=320x240 keyint=30 bframes=3 b-pyramid deblock=0:0 "
        + "chromaloc=0 display-window=0 colorprim=6 transfer=2 scenecut-aware-qp=0conformance-window-offsets right=0 bottom=0 analysis-reuse-level=0"

    @Test func readsTheOptionsAndGivesBackWhatDescribesTheStream() throws {
        let options = try #require(X265Options(text: Self.text))
        #expect(options.value("keyint") == "30" && options.value("bframes") == "3" && options.options.contains { $0.name == "wpp" && $0.value == nil })
        let parameters = options.parameters.split(separator: ":").map(String.init)
        #expect(parameters == ["log-level=error", "wpp=1", "keyint=30", "bframes=3", "b-pyramid=1", "deblock=0,0", "colorprim=6",
                               "scenecut-aware-qp=0conformance-window-offsets"], "\(parameters)")
        // The machine's and the run's are left out; flags off by default stay off (given back, 0 or 2 would turn
        // them on), a colour description that is there (primaries 6) is given back.
        for left in ["cpuid", "frame-threads", "input-res", "chromaloc", "display-window", "transfer", "right", "bottom", "analysis-reuse-level"] {
            #expect(!parameters.contains { $0.hasPrefix(left + "=") }, "\(left) in \(parameters)")
        }
        #expect(parameters.contains("wpp=1") && parameters.contains("deblock=0,0") && parameters.contains("keyint=30"))
        #expect(X265Options(text: "x264 - options: a=1") == nil && X265Options(payload: Array("junk".utf8)) == nil)
        #expect(X265Options(payload: [0, 0, 1, 0x4E, 1] + Array(Self.text.utf8) + [0, 0x80]) == options)
    }

    /// libx265 opened with a Reel HEVC movie's own options writes the movie's VPS, SPS and PPS.
    @Test func libx265GivenAMoviesOptionsWritesItsParameterSets() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/movie.mov"
        let made = try Processes.reel(["record", movie, "--video", "lavfi:testsrc2?realtime=0", "--audio", "none", "--max-duration", "1",
                                       "--preset", try TestInputs.smallHEVCPreset(in: folder), "--quiet"])
        #expect(made.status == 0, "\(made.standardError)")
        let stream = try #require(try InputContext(url: movie, formatName: nil).bestStream(of: .video))
        let options = try #require(X265Options(payload: stream.extradata))
        var settings = VideoEncoderSettings(width: stream.width, height: stream.height, frameRate: try #require(stream.frameRate), keyframeInterval: 30)
        settings.codecName = "libx265"
        settings.colour = stream.colour
        settings.privateOptions = [PrivateOption("x265-params", options.parameters)]
        let encoder = try Encoder(video: settings, globalHeader: true)
        let written = CodecConfigurationRecord.parameterSets(annexB: try StreamParameters(of: encoder).extradata, codec: .hevc)
        let movies = try #require(CodecConfigurationRecord.parameterSets(hvcC: stream.extradata))
        #expect(movies.count == 3 && written == movies, "\(written.map(\.count)) against \(movies.map(\.count))")
    }
}
