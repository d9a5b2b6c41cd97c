import FFmpegCore
import FoundationEssentials
import SystemSupport

/// A movie's live streams (`--live`): each gets a reference to every packet the movie writes, on the movie's
/// own timeline (a segmented movie's files restart their times; the streams' do not).
extension MovieRecorder {
    func openLiveStreams() {
        guard !setup.live.isEmpty else { return }
        let audio = segments.current?.audioStreamEncoder
        for live in setup.live { live.open(video: videoEncoder, audio: audio, frameDuration: videoTimeBase.doubleValue) }
    }

    /// A video packet with the movie's slot times, before its file's own.
    func sendLive(video packet: Packet) {
        guard !setup.live.isEmpty else { return }
        dateLiveStreams()
        for live in setup.live { live.video(packet) }
    }

    /// An audio packet of `segment`, on that file's timeline. A later file's AAC starts with a priming frame
    /// of the samples before it (MovieRecorder.preroll), which the stream already has from the file before.
    func sendLive(audio packet: Packet, of segment: MovieSegment) {
        guard !setup.live.isEmpty, segment.index == 1 || packet.pts >= 0 else { return }
        dateLiveStreams()
        for live in setup.live { live.audio(packet, offset: segment.start.sample) }
    }

    /// Tells the streams the wall-clock time of the movie's zero once it has one (the session clock's
    /// start plus the movie's origin on it), for their EXT-X-PROGRAM-DATE-TIME.
    private func dateLiveStreams() {
        guard !liveStreamsDated, let origin else { return }
        liveStreamsDated = true
        let zero = setup.sessionStart + Int64((origin.seconds * 1_000_000_000).rounded())
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded()) - (MonotonicClock.nanoseconds() - zero) / 1_000_000
        for live in setup.live { live.setWallClock(atZero: milliseconds) }
    }
}
