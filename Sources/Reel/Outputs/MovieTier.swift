/// A further movie from the same capture at another preset (a 352x288 proxy beside a 1080p master), as
/// ffmpeg's several outputs or GStreamer's tee. It starts on the same frame as the main movie and keeps the
/// recording's duration limit and free-space floor; its size limit is its own.
public struct MovieTier: Sendable, Equatable {
    public var outputPath: String
    public var preset: Preset
    /// The most bytes this movie may take; nil keeps the recording's max file size (each file on its own).
    public var maxFileSize: Int64?

    public init(outputPath: String, preset: Preset, maxFileSize: Int64? = nil) {
        self.outputPath = outputPath
        self.preset = preset
        self.maxFileSize = maxFileSize
    }
}
