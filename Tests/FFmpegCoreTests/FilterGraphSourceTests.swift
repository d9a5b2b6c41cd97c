import FFmpegCore
import Testing

/// lavfi graphs read straight from their buffer sink (libavfilter loaded on first use).
@Suite struct FilterGraphSourceTests {
    @Test func testPatternFramesComeOutAtTheGraphsSizeRateAndFormat() throws {
        let source = try FilterGraphSource(description: "testsrc2=size=320x240:rate=30,format=rgb24", pixelFormats: [.yuv420p])
        #expect(source.mediaType == .video)
        #expect(source.timeBase == Rational(1, 30))
        let frame = Frame()
        for index in 0..<5 {
            #expect(try source.read(into: frame) == .frame)
            #expect(frame.width == 320 && frame.height == 240)
            #expect(frame.pixelFormat == .yuv420p, "converted inside the graph to the format asked for")
            #expect(frame.pts == Int64(index))
        }
    }

    @Test func aSineGivesSamplesAndTheGraphEndsWhenItsSourceDoes() throws {
        let source = try FilterGraphSource(description: "sine=frequency=440:sample_rate=48000:duration=0.5")
        #expect(source.mediaType == .audio)
        #expect(source.timeBase == Rational(1, 48000))
        let frame = Frame()
        var samples = 0
        var reads = 0
        while try source.read(into: frame) == .frame {
            #expect(frame.sampleRate == 48000)
            #expect(frame.pts == Int64(samples))
            samples += frame.sampleCount
            reads += 1
            try #require(reads < 100, "a 0.5 s sine must end")
        }
        #expect(samples == 24000)
    }

    @Test(arguments: [
        ("scale=320:240", "unconnected input"),
        ("testsrc2[a];sine[b]", "more than one output"),
        ("nosuchfilter", "avfilter_graph_parse2"),
        ("testsrc2=nosuchoption=1", "avfilter_graph_parse2"),
    ])
    func graphsThatCannotBeASourceAreRefusedWithTheReason(graph: String, mention: String) {
        do {
            _ = try FilterGraphSource(description: graph)
            Issue.record("\(graph) was accepted")
        } catch {
            #expect("\(error)".contains(mention), "\(error)")
        }
    }
}
