/// Bounds the size of the moov atom FFmpeg 5.1's mov muxer will write at the trailer, from counts the
/// writer tracks as it hands packets over in file order (see docs/ARCHITECTURE.md, "Size limit").
/// Derived from libavformat/movenc.c of FFmpeg 5.1 and checked against real files: the bound lands about
/// 130–150 bytes above the real moov, for H.264 and HEVC alike; tests assert it is never below.
struct TrailerSizeEstimator {
    struct Track {
        let fixedBytes: Int
        var samples = 0
        var keyframes = 0
        var disposables = 0
        var chunks = 0
        var samplesPerChunkChanges = 0
        var timeRuns = 0
        var offsetRuns = 0
        var hasOffsets = false
        var samplesInCurrentChunk = 0
        var samplesInPreviousChunk = -1
        var currentChunkBytes = 0
        var lastDecodeTime: Int64? = nil
        var lastDuration: Int64? = nil
        var lastOffset: Int64? = nil
        var lastSampleEnd: Int64 = -1
        var needs64BitOffsets = false

        mutating func record(_ sample: Sample) {
            samples += 1
            if sample.isKeyframe { keyframes += 1 }
            if sample.isDisposable { disposables += 1 }
            // Chunks: a sample joins the open chunk only when it follows it directly in the file and the chunk
            // stays under 1 MiB (movenc's build_chunks).
            let continues = sample.fileOffset == lastSampleEnd
                && currentChunkBytes + sample.storedSize < TrailerSizeEstimator.maximumChunkBytes
            if continues {
                samplesInCurrentChunk += 1
                currentChunkBytes += sample.storedSize
            } else {
                if chunks > 0 && samplesInCurrentChunk != samplesInPreviousChunk { samplesPerChunkChanges += 1 }
                samplesInPreviousChunk = chunks > 0 ? samplesInCurrentChunk : -1
                chunks += 1
                samplesInCurrentChunk = 1
                currentChunkBytes = sample.storedSize
            }
            lastSampleEnd = sample.fileOffset + Int64(sample.storedSize)
            if sample.fileOffset > Int64(UInt32.max) { needs64BitOffsets = true }
            // stts: runs of equal decode-time steps; ctts: runs of equal presentation offsets.
            if let last = lastDecodeTime {
                let duration = sample.decodeTime - last
                if duration != lastDuration { timeRuns += 1 }
                lastDuration = duration
            }
            lastDecodeTime = sample.decodeTime
            if sample.presentationOffset != 0 { hasOffsets = true }
            if sample.presentationOffset != lastOffset { offsetRuns += 1 }
            lastOffset = sample.presentationOffset
        }

        var bytes: Int {
            var total = fixedBytes + 4 * samples + 8 * (timeRuns + 1) + 12 * (samplesPerChunkChanges + 1)
            total += (needs64BitOffsets ? 8 : 4) * chunks
            if hasOffsets { total += 8 * offsetRuns }
            if keyframes != samples { total += 4 * keyframes }
            // sdtp, once a video sample is disposable (x265's non-reference B-frames): a byte a sample.
            if disposables > 0 { total += 12 + samples }
            return total
        }
    }

    /// moov header + mvhd, and the udta with the muxer's "encoder" tag.
    private static let movieFixedBytes = 116 + 33
    /// trak..stbl boxes and empty table headers, per track kind, with the box allowances found in movenc.c;
    /// a video track's codec configuration record (avcC, hvcC) is added to it.
    static let videoTrackFixedBytes = 559 + 9 + 16 + 18 + 61
    static let audioTrackFixedBytes = 648 + 32
    static let maximumChunkBytes = 1 << 20

    private(set) var tracks: [Track]

    /// `headerSize`: the codec header stored in each track's sample description: a video track's
    /// configuration record (CodecConfigurationRecord.size: avcC, hvcC), an audio track's extradata
    /// (AudioSpecificConfig).
    init(trackKinds: [(isVideo: Bool, headerSize: Int)]) {
        tracks = trackKinds.map { kind in
            Track(fixedBytes: (kind.isVideo ? TrailerSizeEstimator.videoTrackFixedBytes
                                            : TrailerSizeEstimator.audioTrackFixedBytes) + kind.headerSize)
        }
    }

    /// The moov size if the trailer were written now.
    var bound: Int { TrailerSizeEstimator.movieFixedBytes + tracks.reduce(0) { $0 + $1.bytes } }

    /// The bound after one more sample, without recording it (only that track's counters are copied: no
    /// allocation per packet).
    func bound(adding sample: Sample) -> Int {
        var track = tracks[sample.track]
        track.record(sample)
        return bound - tracks[sample.track].bytes + track.bytes
    }

    struct Sample {
        var track: Int
        /// Where the sample starts in the file and how many bytes it takes there.
        var fileOffset: Int64
        var storedSize: Int
        var decodeTime: Int64
        var presentationOffset: Int64
        var isKeyframe: Bool
        /// No other sample refers to it (AV_PKT_FLAG_DISPOSABLE), which puts an sdtp in the track.
        var isDisposable: Bool = false
    }

    mutating func record(_ sample: Sample) {
        tracks[sample.track].record(sample)
    }
}
