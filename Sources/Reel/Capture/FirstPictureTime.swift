import FFmpegCore
import Synchronization

/// When the session's first picture was captured (session microseconds), for the audio readers of a live
/// session with video: a live movie starts with its first picture, so their duration limit counts from it,
/// not from their own first sample (a camera or a heavy source can start a second after the microphone,
/// and the audio would stop short of the movie's end). Set once by the first video sink to take a picture.
final class FirstPictureTime: Sendable {
    private let first = Atomic<Int64>(Int64.min)

    func note(_ time: Timestamp) {
        _ = first.compareExchange(expected: Int64.min, desired: time.rescaled(to: sessionTimeBase).value, ordering: .releasing)
    }

    /// Session microseconds, once a picture was taken.
    var micros: Int64? {
        let value = first.load(ordering: .acquiring)
        return value == Int64.min ? nil : value
    }

    /// In samples at `sampleRate`, once a picture was taken.
    func sample(at sampleRate: Int) -> Int64? {
        guard let value = micros else { return nil }
        return Timestamp(value: value, timeBase: sessionTimeBase).rescaled(to: Rational(1, Int32(sampleRate))).value
    }
}
