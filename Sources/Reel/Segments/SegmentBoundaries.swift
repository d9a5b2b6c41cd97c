import FFmpegCore

/// Where segments begin on a movie's timeline, in video frame slots and audio samples. Every boundary is a
/// frame slot (the picture there is forced to be a keyframe) and the audio sample at the same instant, so a
/// segment's audio covers exactly its video. Pure, unit-tested in SegmentBoundaryTests.
struct SegmentBoundaries: Sendable, Equatable {
    struct Boundary: Sendable, Equatable {
        /// The first video frame slot of the segment that begins here.
        var slot: Int64
        /// The first audio sample of that segment (the sample at the slot's instant, rounded).
        var sample: Int64
    }

    let frameRate: Rational
    let sampleRate: Int

    /// The boundary at a frame slot.
    func boundary(atSlot slot: Int64) -> Boundary {
        // slot / rate seconds, in samples: slot * den * sampleRate / num, rounded half up.
        let numerator = Int64(frameRate.numerator), denominator = Int64(frameRate.denominator)
        let scaled = slot.multipliedReportingOverflow(by: denominator * Int64(sampleRate))
        let sample = scaled.overflow ? Int64((Double(slot) * Double(denominator) * Double(sampleRate) / Double(numerator)).rounded())
                                     : (2 * scaled.partialValue + numerator) / (2 * numerator)
        return Boundary(slot: slot, sample: sample)
    }

    /// Segment `index`'s (0-based) start when each lasts `seconds`: the nearest frame slot to index × seconds,
    /// so 10 s at 30 fps is 300 frames each, and 10 s at 29.97 fps alternates 300 and 299 frames without drift.
    func durationBoundary(index: Int, seconds: Double) -> Boundary {
        let slot = Int64((Double(index) * seconds * frameRate.doubleValue + 1e-6).rounded(.toNearestOrAwayFromZero))
        return boundary(atSlot: slot)
    }

    /// Audio-only recordings have no frames: their boundary is the sample at index × seconds.
    func audioOnlyBoundary(index: Int, seconds: Double) -> Boundary {
        Boundary(slot: 0, sample: Int64((Double(index) * seconds * Double(sampleRate)).rounded()))
    }

    /// The first slot a cut decided now can fall on: after every picture already given to the encoder, and
    /// not before audio already encoded into the current segment (that cannot be taken back).
    func earliestCut(nextSlot: Int64, audioEncodedUntil sample: Int64?) -> Boundary {
        var slot = nextSlot
        if let sample {
            // The first slot whose instant is at or after the sample.
            let numerator = Int64(frameRate.numerator), denominator = Int64(frameRate.denominator)
            let product = sample.multipliedReportingOverflow(by: numerator)
            let perSlot = denominator * Int64(sampleRate)
            let audioSlot = product.overflow ? Int64((Double(sample) * Double(numerator) / Double(perSlot)).rounded(.up))
                                             : (product.partialValue + perSlot - 1) / perSlot
            slot = max(slot, audioSlot)
        }
        var cut = boundary(atSlot: slot)
        if let sample, cut.sample < sample {
            cut = boundary(atSlot: slot + 1)
        }
        return cut
    }
}
