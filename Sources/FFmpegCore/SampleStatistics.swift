import CFFmpeg

/// The sample peak and the sum of squares of one channel over a run of samples, on the full-scale range
/// −1…1 (integer formats scaled by their full scale: 32768 for 16-bit), read in place from a frame.
public struct SampleStatistics: Sendable, Equatable {
    /// The largest magnitude, 0…1 (a little over 1 for floating-point samples past full scale).
    public var peak: Double = 0
    public var sumOfSquares: Double = 0
    public var count = 0

    /// Samples at full scale or past it (a clipped sample of an integer format is its extreme value).
    public var fullScaleCount = 0

    public init(peak: Double = 0, sumOfSquares: Double = 0, count: Int = 0, fullScaleCount: Int = 0) {
        self.peak = peak
        self.sumOfSquares = sumOfSquares
        self.count = count
        self.fullScaleCount = fullScaleCount
    }

    /// Both runs as one.
    public mutating func add(_ other: SampleStatistics) {
        peak = max(peak, other.peak)
        sumOfSquares += other.sumOfSquares
        count += other.count
        fullScaleCount += other.fullScaleCount
    }
}

extension Frame {
    /// The statistics of channel `channel` over the samples `range` of this audio frame, read where they are
    /// (planar or interleaved; unsigned 8-bit, signed 16-/32-bit, float, double). Nil for another format.
    public func sampleStatistics(channel: Int, range: Range<Int>) -> SampleStatistics? {
        let format = AVSampleFormat(pointer.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let channels = channelCount
        guard channel >= 0, channel < channels, range.lowerBound >= 0, range.upperBound <= sampleCount,
              let base = planeData(planar ? channel : 0) else { return nil }
        let step = planar ? 1 : channels
        let first = planar ? range.lowerBound : range.lowerBound * channels + channel
        let raw = UnsafeRawPointer(base)
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8:
            let isFull: (UInt8) -> Bool = { $0 == 0 || $0 == 255 }
            let value: (UInt8) -> Double = { Double(Int($0) - 128) }
            return Frame.measure(raw.assumingMemoryBound(to: UInt8.self), first, step, range.count, 128, isFull, value)
        case AV_SAMPLE_FMT_S16:
            let isFull: (Int16) -> Bool = { $0 == .min || $0 == .max }
            let value: (Int16) -> Double = { Double($0) }
            return Frame.measure(raw.assumingMemoryBound(to: Int16.self), first, step, range.count, 32768, isFull, value)
        case AV_SAMPLE_FMT_S32:
            let isFull: (Int32) -> Bool = { $0 == .min || $0 == .max }
            let value: (Int32) -> Double = { Double($0) }
            return Frame.measure(raw.assumingMemoryBound(to: Int32.self), first, step, range.count, 2_147_483_648, isFull, value)
        case AV_SAMPLE_FMT_FLT:
            let isFull: (Float) -> Bool = { abs($0) >= 1 }
            let value: (Float) -> Double = { Double($0) }
            return Frame.measure(raw.assumingMemoryBound(to: Float.self), first, step, range.count, 1, isFull, value)
        case AV_SAMPLE_FMT_DBL:
            let isFull: (Double) -> Bool = { abs($0) >= 1 }
            let value: (Double) -> Double = { $0 }
            return Frame.measure(raw.assumingMemoryBound(to: Double.self), first, step, range.count, 1, isFull, value)
        default:
            return nil
        }
    }

    private static func measure<Sample>(_ samples: UnsafePointer<Sample>, _ first: Int, _ step: Int, _ count: Int,
                                        _ fullScale: Double, _ isFull: (Sample) -> Bool,
                                        _ value: (Sample) -> Double) -> SampleStatistics {
        var peak = 0.0, squares = 0.0, full = 0
        var index = first
        for _ in 0..<count {
            let sample = samples[index]
            let level = value(sample)
            peak = max(peak, abs(level))
            squares += level * level
            if isFull(sample) { full += 1 }
            index += step
        }
        let scale = 1 / fullScale
        return SampleStatistics(peak: peak * scale, sumOfSquares: squares * scale * scale, count: count, fullScaleCount: full)
    }
}
