/// A movie written from a replay buffer (`ReplayBuffer.save`): where, and exactly what span of the
/// recording's timeline it holds (it starts on a keyframe at most one group of pictures earlier than asked,
/// or with the oldest picture held when the buffer holds less).
public struct ReplaySave: Sendable, Codable, Equatable {
    public var path: String
    /// The seconds asked for (nil: everything held).
    public var requestedSeconds: Double?
    /// Seconds of the recording it holds: from `start` to `end`.
    public var seconds: Double
    /// Where it starts and ends on the timeline of the movie (or stream) the buffer is fed from, in seconds.
    public var start: Double
    public var end: Double
    /// The moment of the request on that timeline: the newest picture the movie had then (pictures decoded
    /// after it and shown before it may end the movie up to a few pictures later). Nil without video.
    public var requestedAt: Double?
    public var videoFrames: Int
    public var audioSamples: Int64
    public var bytes: Int64
    /// Milliseconds from the request to the finalized file.
    public var milliseconds: Double
}
