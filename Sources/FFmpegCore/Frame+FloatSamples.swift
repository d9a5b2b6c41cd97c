import CFFmpeg

/// Planar float audio (the capture format) as Swift arrays, for code that works on samples itself (the mix).
extension Frame {
    /// The first `count` samples of each channel of a planar float frame.
    public func floatPlanarSamples(count: Int) -> [[Float]] {
        precondition(sampleFormat == .floatPlanar, "floatPlanarSamples reads planar float audio")
        return (0..<channelCount).map { channel in
            guard let base = planeData(channel) else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(base).assumingMemoryBound(to: Float.self), count: min(count, sampleCount)))
        }
    }

    /// Writes `samples` (one array per channel, all of one length up to the frame's allocated count) into this
    /// planar float frame, which the caller owns, and sets its sample count.
    public func setFloatPlanarSamples(_ samples: [[Float]]) throws {
        precondition(sampleFormat == .floatPlanar && samples.count == channelCount, "setFloatPlanarSamples writes planar float audio")
        try makeWritable()
        let count = samples.first?.count ?? 0
        for (channel, values) in samples.enumerated() {
            guard let base = planeData(channel) else { continue }
            values.withUnsafeBufferPointer { source in
                UnsafeMutableRawPointer(base).assumingMemoryBound(to: Float.self).update(from: source.baseAddress!, count: count)
            }
        }
        sampleCount = count
    }
}
