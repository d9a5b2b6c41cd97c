import FFmpegCore
@testable import Reel
import Testing

/// The colour rules of issue 12, row 10, without encoding anything (ColourTaggingTests checks real files).
@Suite struct ColourPlanTests {
    static let hlg = ColourDescription(primaries: .bt2020, transfer: .aribStdB67, matrix: .bt2020nc, range: .limited)

    static func plan(_ source: ColourDescription, bits: Int = 8, output: (Int, Int), toneMapping: Bool = true) throws -> ColourPlan {
        try ColourPlan(source: source, bitsPerComponent: bits, outputWidth: output.0, outputHeight: output.1,
                       sourceName: "IN.mov", toneMappingAvailable: toneMapping)
    }

    @Test func untaggedAndRGBSourcesGetTheStandardOfTheOutputSize() throws {
        #expect(try Self.plan(.unspecified, output: (1280, 720)).output == .bt709)
        #expect(try Self.plan(.unspecified, output: (720, 576)).output == .bt601)
        #expect(try Self.plan(.unspecified, output: (1280, 544)).output == .bt709, "1280 wide is HD at any height")
        let rgb = ColourDescription(primaries: .unspecified, transfer: .unspecified, matrix: .rgb, range: .full)
        #expect(try Self.plan(rgb, output: (352, 288)).output == .bt601)
        #expect(try Self.plan(.unspecified, output: (1920, 1080)).toneMappedSource == nil)
    }

    @Test func taggedSDRSourcesKeepTheirTags() throws {
        #expect(try Self.plan(.bt709, output: (352, 288)).output == .bt709)
        #expect(try Self.plan(.bt601, output: (1920, 1080)).output == .bt601)
        #expect(try Self.plan(.bt601Line625, output: (1280, 720)).output == .bt601Line625)
        // Only a matrix tagged (common in files): the rest follows its standard; full range becomes limited.
        let matrixOnly = ColourDescription(primaries: .unspecified, transfer: .unspecified, matrix: .bt709, range: .full)
        #expect(try Self.plan(matrixOnly, output: (640, 480)).output == .bt709)
    }

    @Test func hdrIsToneMappedToBT709() throws {
        let plan = try Self.plan(Self.hlg, bits: 10, output: (640, 480))
        #expect(plan.output == .bt709 && plan.toneMappedSource == Self.hlg)
        // PQ with only its transfer tagged is BT.2020 in the rest.
        let pq = ColourDescription(primaries: .unspecified, transfer: .smpte2084, matrix: .unspecified, range: .unspecified)
        #expect(try Self.plan(pq, bits: 10, output: (1280, 720)).toneMappedSource
                == ColourDescription(primaries: .bt2020, transfer: .smpte2084, matrix: .bt2020nc, range: .limited))
    }

    @Test func hdrIsRefusedUpFrontWhenFFmpegCannotToneMap() {
        #expect {
            _ = try Self.plan(Self.hlg, bits: 10, output: (1280, 720), toneMapping: false)
        } throws: { error in
            guard let error = error as? ReelError, error.kind == .invalidInput else { return false }
            let message = error.message
            return message.hasPrefix("IN.mov is HDR (HLG, BT.2020 10-bit): Reel writes SDR video and this FFmpeg cannot tone-map it")
                && message.contains("ffmpeg -i IN.mov -vf 'zscale=t=linear") && !message.contains("\n")
        }
    }
}
