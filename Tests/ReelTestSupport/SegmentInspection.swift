import Foundation

/// Reading a segmented recording back: each segment's decoded audio (cut to the samples its edit list plays,
/// without the encoder's end padding), and how cleanly a pure tone runs across the joins.
public enum SegmentInspection {
    /// The samples a movie's audio track plays (its stream's duration in samples).
    public static func playedAudioSamples(_ path: String) throws -> Int {
        let audio = try FFprobe.stream(path, type: "audio")
        return Int(audio?["duration_ts"] as? Int ?? Int(audio?["duration_ts"] as? String ?? "") ?? -1)
    }

    /// A movie's audio decoded by ffmpeg to mono floats, only the samples it plays.
    public static func playedMono(_ path: String, sampleRate: Int) throws -> [Float] {
        let samples = try TestInputs.monoSamples(path, sampleRate: sampleRate)
        return Array(samples.prefix(try playedAudioSamples(path)))
    }

    /// The worst error, as a fraction of the tone's amplitude, of any 5 ms stretch of `samples` against the
    /// pure tone of `frequency` that fits them best, leaving out the first `skip` samples (an encoder's start
    /// from silence). A sample lost or repeated at a join shifts the phase of everything after it; a join
    /// encoded from silence distorts its first milliseconds: both show here.
    public static func worstToneError(_ samples: [Float], frequency: Double, sampleRate: Int, skip: Int) -> Double {
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        var (real, imaginary) = (0.0, 0.0)
        for (index, sample) in samples.enumerated() {
            real += Double(sample) * cos(omega * Double(index))
            imaginary -= Double(sample) * sin(omega * Double(index))
        }
        let amplitude = 2 * (real * real + imaginary * imaginary).squareRoot() / Double(samples.count)
        let phase = atan2(imaginary, real)
        let window = sampleRate / 200
        var worst = 0.0
        var start = skip
        while start + window <= samples.count {
            var sum = 0.0
            for index in start..<(start + window) {
                let error = Double(samples[index]) - amplitude * cos(omega * Double(index) + phase)
                sum += error * error
            }
            worst = max(worst, (sum / Double(window)).squareRoot() / amplitude)
            start += window
        }
        return worst
    }

    /// The first video packet's flags say keyframe.
    public static func startsWithKeyframe(_ path: String) throws -> Bool {
        let probe = try Processes.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                                          "-show_entries", "packet=flags", "-of", "csv=p=0", path])
        return probe.standardOutput.split(separator: "\n").first?.hasPrefix("K") ?? false
    }
}
