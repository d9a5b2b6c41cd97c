import Foundation

/// A sound that tells the instant of the input it comes from, beside `numberedPictures`: a tone whose pitch
/// steps every twentieth of a second (500 Hz + 200 Hz × the step, over one second, then again). In a movie of
/// both, made from the inputs' own timeline (`realtime=0`: both start at the input's zero), the sound under a
/// picture has that picture's pitch: a pause or a cut that leaves out another stretch of the sound than of
/// the pictures shows as pictures heard at another pitch.
public enum SteppedTone {
    /// The lavfi graph (48 kHz mono).
    public static let source = "aevalsrc='sin(2*PI*(500+200*mod(floor(t*20),20))*t)':s=48000"

    /// The pitch at input time `seconds`.
    public static func pitch(at seconds: Double) -> Double { 500 + 200 * Double(Int((seconds * 20).rounded(.down)) % 20) }

    /// The pictures of a movie of `numberedPictures` at `frameRate` and this tone whose sound is not at the
    /// picture's pitch, as "picture index: heard Hz for expected Hz". Pictures whose middle is within 15 ms of
    /// a step are left out (at 30 fps, one in three); the pitch heard is the step's pitch with the most energy
    /// over the 12 ms around the picture's middle (a DFT bin per pitch; 200 Hz apart, outside each other's
    /// main lobe), so a codec's noise at a cut does not move it: sound more than about 10 ms off its picture
    /// shows. Also returns how many pictures were checked. `wide`: the pictures are
    /// `numberedPictures(wide: true)`.
    public static func misplacedPictures(in path: String, frameRate: Double = 30, wide: Bool = false) throws -> (wrong: [String], checked: Int) {
        let raw = try TestInputs.frameNumbers(path, wide: wide)
        let wrap = wide ? 4096 : 256
        let rate = 48_000
        let samples = try TestInputs.monoSamples(path, sampleRate: rate)
        // The pictures' numbers wrap at 256 (8.5 s at 30 fps; wide, at 4096): unwrapped, they only go up.
        var numbers: [Int] = []
        for number in raw {
            guard let last = numbers.last else { numbers.append(number); continue }
            numbers.append(last + (number - last % wrap + wrap) % wrap)
        }
        var wrong: [String] = []
        var checked = 0
        for (index, number) in numbers.enumerated() {
            let inputTime = (Double(number) + 0.5) / frameRate
            let steps = inputTime * 20
            guard abs(steps - steps.rounded()) > 0.3 else { continue }
            let centre = Int(((Double(index) + 0.5) / frameRate * Double(rate)).rounded())
            let window = (centre - rate * 6 / 1000)..<(centre + rate * 6 / 1000)
            guard window.lowerBound >= 0, window.upperBound <= samples.count else { continue }
            let pitches = (0..<20).map { 500 + 200 * Double($0) }
            let heard = pitches.max { energy(samples[window], at: $0, rate: rate) < energy(samples[window], at: $1, rate: rate) }!
            let expected = pitch(at: inputTime)
            checked += 1
            if heard != expected { wrong.append("picture \(index) (number \(number)): \(Int(heard)) Hz for \(Int(expected))") }
        }
        return (wrong, checked)
    }

    /// The energy of `samples` at `frequency` (one DFT bin).
    static func energy(_ samples: ArraySlice<Float>, at frequency: Double, rate: Int) -> Double {
        var (re, im) = (0.0, 0.0)
        let step = 2 * Double.pi * frequency / Double(rate)
        for (n, sample) in samples.enumerated() {
            re += Double(sample) * cos(step * Double(n))
            im -= Double(sample) * sin(step * Double(n))
        }
        return re * re + im * im
    }
}
