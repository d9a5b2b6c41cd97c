import QuickTime
import Testing

/// Time conversions round as FFmpeg's av_rescale_rnd: the muxer's times are computed the same way here.
@Suite struct TimeBaseTests {
    @Test func roundsAsFFmpeg() {
        let half = TimeBase(1, 2), whole = TimeBase(1, 1)
        // To nearest: halves away from zero (AV_ROUND_NEAR_INF), for negative times too.
        #expect(half.convert(1, to: whole) == 1 && half.convert(-1, to: whole) == -1)
        #expect(half.convert(3, to: whole) == 2 && half.convert(-3, to: whole) == -2)
        // Down and up are toward minus and plus infinity.
        #expect(half.convert(-1, to: whole, rounding: .down) == -1 && half.convert(-1, to: whole, rounding: .up) == 0)
        #expect(half.convert(1, to: whole, rounding: .down) == 0 && half.convert(1, to: whole, rounding: .up) == 1)
        // An AAC track's priming in movie time, as movenc computes an edit list's delay: -1024/48000 s.
        let audio = TimeBase(timescale: 48000), movie = TimeBase(timescale: 1000)
        #expect(audio.convert(-1024, to: movie, rounding: .down) == -22)
        #expect(audio.convert(145_024, to: movie, rounding: .up) == 3022)
        // x264's 1/30 time base into the muxer's 1/15360: exact.
        #expect(TimeBase(1, 30).convert(-2, to: TimeBase(timescale: 15360)) == -1024)
    }

    @Test func staysExactWhereProductsPassSixtyFourBits() {
        // 2^62 ticks of 1/48000 in 1/90000: the product needs 128 bits, the result fits.
        let value: Int64 = 1 << 62
        #expect(TimeBase(timescale: 48000).convert(value, to: TimeBase(timescale: 90000), rounding: .down) == value / 8 * 15)
        #expect(TimeBase(timescale: 1).convert(Int64.max, to: TimeBase(timescale: 1000)) == Int64.max, "clamped")
        #expect(TimeBase(timescale: 1).convert(-Int64.max, to: TimeBase(timescale: 1000)) == Int64.min, "clamped")
    }

    @Test func samplesConvertTimesOneByOne() {
        // Presentation and decode times are each rounded, as av_packet_rescale_ts does, not the offset.
        let sample = Sample(decodeTime: 1, presentationOffset: 1, duration: 1, size: 10, isKeyframe: true)
        let converted = sample.converted(from: TimeBase(1, 3), to: TimeBase(1, 2))
        #expect(converted.decodeTime == 1 && converted.presentationTime == 1 && converted.duration == 1)
        #expect(converted.size == 10 && converted.isKeyframe)
    }
}
