/// When a size-limited segment must end: before the bytes still to come into it (the pictures inside the
/// encoder whose packets are not out yet, and the audio over the same time) could take it past its size.
///
/// The pictures in flight are foreseen from the ones just out: each as large as the larger of 1.25 times
/// the recent average (x264 at 720p, superfast, 10 pictures in flight: they average 1.1 times it) and the
/// largest of the last `peakWindow` pictures (so a burst of detail counts as soon as its first picture is
/// out, not 30 pictures later), plus one keyframe in case one is among them. A segment is never cut inside
/// the pictures already encoded: when they outgrow the estimate, the segment holds them and ends after
/// them, larger than its size by what the estimate missed (MovieRecorder reports by how much).
/// Pure, unit-tested in SegmentBoundaryTests.
struct SegmentSizeCut: Sendable {
    let size: Int64
    /// Recent sizes of pictures other than keyframes, averaged, and of the last keyframe (bytes).
    private(set) var averagePicture: Double = 0
    private(set) var lastKeyframe: Int = 0
    private var pictures = 0
    /// The last `peakWindow` sizes of pictures other than keyframes, oldest overwritten first.
    private var recent: [Int] = []
    private var recentNext = 0
    static let recentWindow = 8

    init(size: Int64) { self.size = size }

    /// The mean size of the last `recentWindow` pictures other than keyframes.
    var recentMean: Double { recent.isEmpty ? 0 : Double(recent.reduce(0, +)) / Double(recent.count) }

    mutating func note(videoPacketBytes bytes: Int, isKeyframe: Bool) {
        guard !isKeyframe else {
            lastKeyframe = bytes
            return
        }
        pictures += 1
        // A running mean over the first 30 pictures, then a moving average of about as many.
        let weight = pictures < 30 ? 1 / Double(pictures) : 1.0 / 30
        averagePicture += (Double(bytes) - averagePicture) * weight
        if recent.count < SegmentSizeCut.recentWindow {
            recent.append(bytes)
        } else {
            recent[recentNext] = bytes
            recentNext = (recentNext + 1) % SegmentSizeCut.recentWindow
        }
    }

    /// Bytes still to come into the segment once a cut is decided: `picturesInFlight` pictures (and one more
    /// for the picture being sent), one keyframe, their time's audio, and a margin for a fragment's header.
    func reserve(picturesInFlight: Int, audioBytesPerPicture: Double) -> Int64 {
        let pictures = Double(picturesInFlight + 1)
        let picture = max(1.25 * averagePicture, 1.25 * recentMean)
        return Int64(pictures * (picture + audioBytesPerPicture)) + Int64(lastKeyframe) + 4096
    }

    /// Whether the segment must end now, `projected` being the bytes it would have if finished now and
    /// `segmentPictures` the pictures it holds. Not before it holds more than were in flight: until then the
    /// estimate is made of the file before's pictures, and a cut would only leave a runt of the pictures that
    /// were in flight at its start (after a burst of detail: one runt after another).
    func mustCut(projected: Int64, segmentPictures: Int, picturesInFlight: Int, audioBytesPerPicture: Double) -> Bool {
        segmentPictures > picturesInFlight
            && projected + reserve(picturesInFlight: picturesInFlight, audioBytesPerPicture: audioBytesPerPicture) >= size
    }

    /// Whether an audio-only segment must end now: what is still to come into it is the frames inside the
    /// AAC encoder (its delay is two; four are reserved, each `audioFrameBytes` at the preset's rate) and a
    /// fragment's header.
    func mustCut(projected: Int64, audioFrameBytes: Double) -> Bool {
        projected + Int64(4 * audioFrameBytes) + 4096 >= size
    }
}
