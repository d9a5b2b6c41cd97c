import FFmpegCore
@testable import Reel

/// Feeds a finished movie's samples, in file order, to the TrailerSizeEstimator the writer uses, to compare
/// its bound with the moov the muxer really wrote.
enum TrailerReplay {
    static func bound(for path: String) throws -> Int64 {
        let input = try InputContext(url: path, formatName: nil)
        var estimator = TrailerSizeEstimator(trackKinds: input.streams.map {
            // The file stores avcC, 7 bytes longer than the Annex B headers the encoder reported.
            ($0.mediaType == .video, $0.mediaType == .video ? $0.extradataSize - 7 : $0.extradataSize)
        })
        var samples: [TrailerSizeEstimator.Sample] = []
        let packet = Packet()
        while try input.read(into: packet) == .packet {
            samples.append(.init(track: packet.streamIndex, fileOffset: packet.position, storedSize: packet.size,
                                 decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts,
                                 isKeyframe: packet.isKeyframe))
        }
        for sample in samples.sorted(by: { $0.fileOffset < $1.fileOffset }) { estimator.record(sample) }
        return Int64(estimator.bound)
    }
}
