/// A codec by name: the names FFmpeg gives codecs (`h264`, `hevc`, `aac`), which is what an encoder
/// reports and what the container code decides by (configuration records, sample groups).
public struct Codec: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// FFmpeg's name of the codec.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public init(stringLiteral name: String) {
        self.name = name
    }

    public static let h264: Codec = "h264"
    public static let hevc: Codec = "hevc"
    public static let aac: Codec = "aac"

    public var description: String { name }
}
