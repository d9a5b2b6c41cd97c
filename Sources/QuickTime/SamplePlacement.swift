/// A sample where a file holds it: its track (the stream index, from 0) and the offset of its first byte.
public struct SamplePlacement: Equatable, Sendable {
    public var track: Int
    public var offset: Int64
    public var sample: Sample

    public init(track: Int, offset: Int64, sample: Sample) {
        self.track = track
        self.offset = offset
        self.sample = sample
    }
}
