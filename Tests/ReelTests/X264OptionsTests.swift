import FFmpegCore
import Foundation
import QuickTime
@testable import Reel
import ReelTestSupport
import Testing

/// The x264 options a movie carries, read back and given to libx264 again: the parameter sets it then writes
/// are the movie's, byte for byte (what lets a smart trim's re-encoded pictures share the copied ones' sample
/// description).
@Suite struct X264OptionsTests {
    /// What x264 wrote into a Reel 352x288 movie (libx264 core 164, superfast, CRF 24, 2 s keyframes).
    static let reel = "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft 2003-2022 - http://www.videolan.org/x264.html - "
        + "options: cabac=1 ref=1 deblock=1:0:0 analyse=0x3:0x113 me=hex subme=2 psy=1 psy_rd=1.00:0.00 mixed_ref=0 me_range=16 "
        + "chroma_me=1 trellis=0 8x8dct=1 cqm=0 deadzone=21,11 fast_pskip=1 chroma_qp_offset=0 threads=3 lookahead_threads=1 "
        + "sliced_threads=0 nr=0 decimate=1 interlaced=0 bluray_compat=0 constrained_intra=0 bframes=3 b_pyramid=2 b_adapt=1 "
        + "b_bias=0 direct=1 weightb=1 open_gop=0 weightp=1 keyint=60 keyint_min=6 scenecut=0 intra_refresh=0 rc_lookahead=10 "
        + "rc=crf mbtree=1 crf=24.0 qcomp=0.60 qpmin=0 qpmax=69 qpstep=4 vbv_maxrate=1000 vbv_bufsize=2000 crf_max=0.0 "
        + "nal_hrd=none filler=0 ip_ratio=1.40 aq=1:1.00"

    @Test func readsTheOptionsAndNamesThemAsX264TakesThem() throws {
        let options = try #require(X264Options(text: Self.reel))
        #expect(options.options.count == 52 && options.value("keyint") == "60" && options.value("bframes") == "3")
        let parameters = options.parameters.split(separator: ":").map(String.init)
        for expected in ["cabac=1", "deblock=0,0", "me=hex", "psy-rd=1.00,0.00", "mixed-refs=0", "merange=16", "8x8dct=1",
                         "dct-decimate=1", "b-pyramid=normal", "direct=spatial", "min-keyint=6", "rc-lookahead=10", "ipratio=1.40",
                         "aq-mode=1", "aq-strength=1.00", "vbv-maxrate=1000", "nal-hrd=none", "crf=24.0"] {
            #expect(parameters.contains(expected), "\(expected) in \(parameters)")
        }
        for left in ["threads=", "lookahead-threads=", "analyse=", "cqm=", "deadzone=", "rc=", "chroma-qp-offset=", "qpstep="] {
            #expect(!parameters.contains { $0.hasPrefix(left) }, "\(left) in \(parameters)")
        }
        #expect(X264Options(text: "no options here") == nil)
        #expect(X264Options(payload: Array("junk".utf8)) == nil)
        let payload: [UInt8] = [0, 0, 0, 1, 6, 5] + Array(Self.reel.utf8) + [0, 0x80]
        #expect(X264Options(payload: payload) == options)
    }

    /// The SPS and PPS of an avcC record (the sample description's), and of an encoder's Annex B headers.
    static func parameterSets(avcC bytes: [UInt8]) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        var at = 5
        for _ in 0..<2 {
            let count = Int(bytes[at] & (sets.isEmpty ? 0x1f : 0xff))
            at += 1
            for _ in 0..<count {
                let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                sets.append(Array(bytes[(at + 2)..<(at + 2 + length)]))
                at += 2 + length
            }
        }
        return sets
    }

    static func parameterSets(annexB bytes: [UInt8]) -> [[UInt8]] {
        (CodecConfigurationRecord.nalUnits(inAnnexB: bytes) ?? []).map { Array(bytes[$0]) }
    }

    /// libx264 opened with a movie's own options writes the movie's parameter sets: Reel's presets and an
    /// ffmpeg-made movie (x264's medium preset, B-pyramid, 5 references).
    @Test(arguments: [
        ["record", "--preset", "352x288"],
        ["record", "--preset", "720p"],
        ["ffmpeg"],
    ])
    func libx264GivenAMoviesOptionsWritesItsParameterSets(_ how: [String]) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = "\(folder)/movie.mov"
        if how[0] == "record" {
            let made = try Processes.reel(["record", movie, "--video", "lavfi:testsrc2?realtime=0", "--audio", "none",
                                           "--max-duration", "1", "--quiet"] + how.dropFirst())
            #expect(made.status == 0, "\(made.standardError)")
        } else {
            let made = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "1",
                                                              "-c:v", "libx264", "-preset", "medium", "-pix_fmt", "yuv420p", movie])
            #expect(made.status == 0, "\(made.standardError)")
        }
        let input = try InputContext(url: movie, formatName: nil)
        let stream = try #require(input.bestStream(of: .video))
        let packet = Packet()
        var payload: [UInt8] = []
        while payload.isEmpty, try input.read(into: packet) == .packet {
            if packet.streamIndex == stream.index { payload = packet.data }
        }
        let options = try #require(X264Options(payload: payload))
        var settings = VideoEncoderSettings(width: stream.width, height: stream.height, frameRate: try #require(stream.frameRate),
                                            keyframeInterval: Int(options.value("keyint") ?? "") ?? 250)
        settings.colour = stream.colour
        settings.privateOptions = [PrivateOption("x264-params", options.parameters)]
        let encoder = try Encoder(video: settings, globalHeader: true)
        let written = Self.parameterSets(annexB: try StreamParameters(of: encoder).extradata)
        let movies = Self.parameterSets(avcC: stream.extradata)
        #expect(movies.count == 2 && written == movies, "\(how): \(written) against \(movies)")
    }
}
