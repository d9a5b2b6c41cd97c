import FFmpegCore
import QuickTime

/// Feeds a finished movie's samples, in file order, to the TrailerSizeEstimator the writer uses, to compare
/// its bound with the moov the muxer really wrote. (The mov demuxer marks the samples an sdtp box calls
/// disposable, so the replay sees what the writer saw.)
enum TrailerReplay {
    static func bound(for path: String) throws -> Int64 {
        let input = try InputContext(url: path, formatName: nil)
        // A video stream's extradata, read back, is the configuration record the file stores (avcC, hvcC).
        var estimator = TrailerSizeEstimator(tracks: input.streams.map { stream in
            TrackDescription(media: stream.mediaType == .video ? .video(width: stream.width, height: stream.height)
                                                               : .audio(sampleRate: stream.sampleRate, channels: stream.channelCount),
                             codec: Codec(stream.codecName), timeBase: TimeBase(stream.timeBase.numerator, stream.timeBase.denominator),
                             extradata: stream.extradata)
        })
        var placements: [SamplePlacement] = []
        let packet = Packet()
        while try input.read(into: packet) == .packet {
            placements.append(SamplePlacement(track: packet.streamIndex, offset: packet.position, sample: Sample(
                decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts, duration: packet.duration, size: packet.size,
                isKeyframe: packet.isKeyframe, isDisposable: packet.isDisposable)))
        }
        for placement in placements.sorted(by: { $0.offset < $1.offset }) { estimator.record(placement) }
        return Int64(estimator.bound)
    }
}
