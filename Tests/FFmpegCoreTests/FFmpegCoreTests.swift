import FFmpegCore
import Testing

@Suite struct TimestampTests {
    @Test func rescalesBetweenTimeBases() {
        let frame = Timestamp(value: 45, timeBase: Rational(1, 30))
        #expect(frame.rescaled(to: Rational(1, 1_000_000)).value == 1_500_000)
        #expect(frame.rescaled(to: Rational(1, 48000)).value == 72000)
        #expect(frame.seconds == 1.5)
    }

    @Test func comparesAcrossTimeBases() {
        let video = Timestamp(value: 1, timeBase: Rational(1, 30))
        let audio = Timestamp(value: 1601, timeBase: Rational(1, 48000))
        #expect(video < audio)
        #expect(!(audio < video))
    }

    @Test func approximatesNTSCRates() {
        #expect(Rational(approximating: 29.97, maxTerm: 1001 * 240) == Rational(2997, 100))
        #expect(Rational(approximating: 30) == Rational(30, 1))
    }
}

@Suite struct FFmpegErrorTests {
    @Test func carriesTheCallAndFFmpegsText() {
        let error = FFmpegError(code: -2, call: "avformat_open_input(nowhere.mov)")
        #expect(error.description == "avformat_open_input(nowhere.mov): No such file or directory")
        #expect(error.posixCode == 2)
    }

    @Test func openingAMissingFileThrowsANamedError() {
        #expect(throws: FFmpegError.self) { try InputContext(url: "/nonexistent/clip.mov", formatName: nil) }
    }

    @Test func unknownInputOptionsAreRejected() throws {
        do {
            _ = try InputContext(url: "testsrc2", formatName: "lavfi", options: [("no_such_option", "1")])
            Issue.record("expected an error")
        } catch let error as FFmpegError {
            #expect(error.message.contains("no_such_option"))
        }
    }
}

@Suite struct ScalerGeometryTests {
    @Test func keepsAspectByLetterboxing() {
        // 4:3 into 16:9: pillarbox, centred, even.
        let rect = Scaler.fittedRect(sourceWidth: 640, sourceHeight: 480, sampleAspect: Rational(1, 1),
                                     outputWidth: 1280, outputHeight: 720)
        #expect(rect.width == 960 && rect.height == 720 && rect.x == 160 && rect.y == 0)
    }

    @Test func fillsWhenAspectsMatch() {
        let rect = Scaler.fittedRect(sourceWidth: 1920, sourceHeight: 1080, sampleAspect: Rational(0, 1),
                                     outputWidth: 1280, outputHeight: 720)
        #expect(rect.x == 0 && rect.y == 0 && rect.width == 1280 && rect.height == 720)
    }
}
