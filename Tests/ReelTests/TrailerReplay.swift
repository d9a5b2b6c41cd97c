import FFmpegCore
@testable import Reel

/// Feeds a finished movie's samples, in file order, to the TrailerSizeEstimator the writer uses, to compare
/// its bound with the moov the muxer really wrote. (The mov demuxer marks the samples an sdtp box calls
/// disposable, so the replay sees what the writer saw.)
enum TrailerReplay {
    static func bound(for path: String) throws -> Int64 {
        let input = try InputContext(url: path, formatName: nil)
        // A video stream's extradata, read back, is the configuration record the file stores (avcC, hvcC).
        var estimator = TrailerSizeEstimator(trackKinds: input.streams.map { ($0.mediaType == .video, $0.extradataSize) })
        var samples: [TrailerSizeEstimator.Sample] = []
        let packet = Packet()
        while try input.read(into: packet) == .packet {
            samples.append(.init(track: packet.streamIndex, fileOffset: packet.position, storedSize: packet.size,
                                 decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts,
                                 isKeyframe: packet.isKeyframe, isDisposable: packet.isDisposable))
        }
        for sample in samples.sorted(by: { $0.fileOffset < $1.fileOffset }) { estimator.record(sample) }
        return Int64(estimator.bound)
    }
}
