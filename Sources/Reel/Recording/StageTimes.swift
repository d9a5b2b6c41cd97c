import SystemSupport


/// Where a recording's CPU time went, in seconds. Stages are timed with the CPU clock of the thread doing
/// them; `codecThreads` is what the process used beyond Reel's own threads: the worker threads of x264 and of
/// frame-threaded decoders. In a batch with jobs in parallel, the process-wide figures include the other jobs.
public struct StageTimes: Sendable, Codable, Equatable {
    /// Reading packets and decoding them (reader threads).
    public var readDecode: Double = 0
    /// Scaling, pixel-format conversion, resampling and queueing (reader threads).
    public var convert: Double = 0
    /// Calls into x264 on the movie's thread, or on the thread of the shared encoder it takes its pictures
    /// from (the same time in each of that encoder's movies); x264's own threads count under `codecThreads`.
    public var encodeVideo: Double = 0
    /// The AAC encoder, on its own thread.
    public var encodeAudio: Double = 0
    /// Interleaving, limit checks and writing packets.
    public var mux: Double = 0
    /// Everything else the movie's thread did (clock, limits, events).
    public var engineOther: Double = 0
    /// x264's and the decoders' own worker threads, and anything else outside Reel's threads.
    public var codecThreads: Double = 0
    /// The process's CPU time over the recording.
    public var total: Double = 0

    /// CPU time outside the encoders and decoders: Reel's own work.
    public var engineOverhead: Double { convert + mux + engineOther }
}

/// Per-reader accumulation, filled on the reader thread and read once it has ended.
final class ReaderStageClock: Sendable {
    private let values = Locked<(readDecode: Int64, convert: Int64, thread: Int64)>((0, 0, 0))

    func record(readDecode: Int64, convert: Int64, thread: Int64) {
        values.withLock { $0 = (readDecode, convert, thread) }
    }

    var snapshot: (readDecode: Int64, convert: Int64, thread: Int64) { values.withLock { $0 } }
}
