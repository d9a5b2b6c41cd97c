import FFmpegCore

/// One thing a live stream's queue hands over, in the order the movie sent it.
enum LiveItem {
    /// A video packet, its timestamps in the movie's frame slots from the movie's start.
    case video(Packet)
    /// An audio packet, its timestamps in samples from the movie's start.
    case audio(Packet)
    /// Packets were dropped here (the stream fell behind); what follows starts at a keyframe.
    case gap
    /// From `from` seconds of media on, the movie's time zero is `zero` on the wall clock (ms since 1970).
    case clock(zero: Int64, from: Double)
}

/// Where a live stream's packets go, on the stream's own thread (LiveOutput runs it): HLS files in a folder
/// (HLSSink) or a server (PushSink). A sink is owned by that thread alone.
protocol LiveSink: AnyObject {
    /// Takes the next item; each packet it has finished with goes to `recycle` (for the next references).
    func take(_ item: LiveItem, recycle: (Packet) -> Void)
    /// Called after each batch and at least every LiveOutput.pollInterval, with or without packets: the work
    /// that is due by the clock (a reconnection). `ending`: the movie is over, nothing more will come.
    func tick(ending: Bool)
    /// The movie is over and every item was taken: write the end, give back what is held.
    func finish(recycle: (Packet) -> Void)
    /// What the stream made, with what its queue dropped.
    func result(dropped: LiveDrops) -> LiveResult
}

/// What a stream's queue dropped because the stream fell behind (its folder's disk or its network stalled).
struct LiveDrops: Sendable, Equatable {
    var packets = 0
    /// Groups of pictures dropped whole or in part (each drop ends at a keyframe).
    var groups = 0
    /// The first packet that could not be referenced (out of memory), if any.
    var referenceFailure: String?
}
