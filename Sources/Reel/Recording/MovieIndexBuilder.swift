import FFmpegCore

/// Builds the complete sample table (a regular moov) for a fragmented recording, so that a cleanly stopped
/// file is an ordinary QuickTime movie and not a fragmented one.
///
/// A second mov muxer in its ordinary (non-fragmented) mode gets every packet's timing and size, but no
/// payload: it writes through a CapturingOutputIO that discards bytes, and before each track run the
/// write position is moved to where the fragmented muxer really put that run in the file. Its trailer is
/// therefore a moov whose chunk offsets point at the samples inside the fragments' mdat boxes; FFmpeg
/// computes the edit lists, composition offsets and sample descriptions exactly as for any other movie.
final class MovieIndexBuilder {
    struct PendingSample {
        var pts: Int64
        var dts: Int64
        var duration: Int64
        var size: Int
        var isKeyframe: Bool
    }

    enum IndexError: Error, CustomStringConvertible {
        case mismatch(String)
        var description: String {
            switch self { case .mismatch(let what): return "cannot index the movie fragments: \(what)" }
        }
    }

    private let io = CapturingOutputIO()
    private let output: OutputContext
    private let packet = Packet()
    /// Per stream, in the order they were handed to the fragmented muxer and not yet placed.
    private var pending: [[PendingSample]]
    private var pendingHeads: [Int]
    private var zeros: UnsafeMutablePointer<UInt8>
    private var zerosCapacity = 0
    private(set) var samplesPlaced = 0

    /// `storedHeaders`: per stream, the codec header as the fragmented file stores it. H.264 from x264
    /// comes in Annex B form, which the muxer rewrites with length prefixes as it stores each sample; given
    /// the stored (avcC) header instead, it takes samples as they are, so the sizes found in the file can
    /// be handed over with a payload of zeros.
    init(encoders: [Encoder], rotationDegrees: Int, videoStream: Int?, storedHeaders: [Int: [UInt8]]) throws {
        output = try OutputContext(writingTo: io, formatName: "mov", name: "movie index")
        for encoder in encoders { try output.addStream(for: encoder) }
        for (stream, header) in storedHeaders { try output.setExtradata(streamIndex: stream, header) }
        if let videoStream { try output.setRotation(streamIndex: videoStream, clockwiseDegrees: rotationDegrees) }
        pending = Array(repeating: [], count: encoders.count)
        pendingHeads = Array(repeating: 0, count: encoders.count)
        zerosCapacity = 64 * 1024
        zeros = .allocate(capacity: zerosCapacity)
        zeros.initialize(repeating: 0, count: zerosCapacity)
        try output.writeHeader()
    }

    deinit {
        packet.unref()
        zeros.deallocate()
    }

    /// Notes a packet just handed to the fragmented muxer (timestamps in its encoder's time base).
    func notePending(stream: Int, pts: Int64, dts: Int64, duration: Int64, size: Int, isKeyframe: Bool) {
        pending[stream].append(PendingSample(pts: pts, dts: dts, duration: duration, size: size, isKeyframe: isKeyframe))
    }

    /// Places the samples of the fragments just written at their real positions in the file, with the sizes
    /// stored there; `each` sees every placed sample in file order.
    func place(_ fragments: [MovieFragmentScanner.Fragment], each: (Int, Int64, PendingSample) -> Void) throws {
        for fragment in fragments {
            for run in fragment.runs {
                let stream = run.trackID - 1
                guard pending.indices.contains(stream) else { throw IndexError.mismatch("unknown track \(run.trackID)") }
                guard pendingHeads[stream] + run.sampleSizes.count <= pending[stream].count else {
                    throw IndexError.mismatch("track \(run.trackID) has more samples in the file than were written")
                }
                io.move(to: run.dataStart)
                var position = run.dataStart
                for size in run.sampleSizes {
                    var sample = pending[stream][pendingHeads[stream]]
                    pendingHeads[stream] += 1
                    sample.size = size
                    try write(sample, stream: stream)
                    each(stream, position, sample)
                    position += Int64(size)
                    samplesPlaced += 1
                }
            }
        }
        for stream in pending.indices where pendingHeads[stream] > 4096 || pendingHeads[stream] == pending[stream].count {
            pending[stream].removeFirst(pendingHeads[stream])
            pendingHeads[stream] = 0
        }
    }

    /// Samples noted but not yet found in a fragment on disk.
    var unplacedSamples: Int { pending.indices.reduce(0) { $0 + pending[$1].count - pendingHeads[$1] } }

    /// The moov for every placed sample, as it must be written at `fileEnd` (its own offsets don't depend on
    /// where it goes, but the muxer writes it at its current position).
    func finishIndex(at fileEnd: Int64) throws -> [UInt8] {
        io.flush()
        io.move(to: fileEnd)
        io.captureStart = fileEnd
        try output.finish()
        return io.captured
    }

    private func write(_ sample: PendingSample, stream: Int) throws {
        if sample.size > zerosCapacity {
            zeros.deallocate()
            zerosCapacity = sample.size
            zeros = .allocate(capacity: zerosCapacity)
            zeros.initialize(repeating: 0, count: zerosCapacity)
        }
        // The muxer only needs the size and timing: its I/O discards the payload.
        packet.borrow(zeros, size: sample.size)
        packet.streamIndex = stream
        packet.pts = sample.pts
        packet.dts = sample.dts
        packet.duration = sample.duration
        packet.setKeyframe(sample.isKeyframe)
        defer { packet.unref() }
        try output.write(packet, interleaved: false)
    }
}
