import FFmpegCore

/// What a media file holds: container, duration and streams, as `reel probe` shows it.
public struct MediaDescription: Sendable, Codable, Equatable {
    public struct Stream: Sendable, Codable, Equatable {
        public var index: Int
        public var type: String
        public var codec: String
        public var width: Int?
        public var height: Int?
        public var frameRate: Double?
        public var sampleRate: Int?
        public var channels: Int?
        public var duration: Double?
        public var frames: Int64?
        public var rotation: Int?
        /// Set when players mirror the picture (before its rotation): the display matrix is a reflection.
        public var mirrored: Bool? = nil
        /// Set for a picture attached to the file (cover art), which is no video track.
        public var attachedPicture: Bool? = nil
        /// A video stream's colour tags as FFmpeg names them ("bt709/bt709/bt709/tv"), when it has any.
        public var colour: String? = nil
    }

    public var path: String
    public var format: String
    public var duration: Double?
    public var streams: [Stream]
}

public enum MediaProbe {
    public static func describe(path: String) throws -> MediaDescription {
        let input: InputContext
        do {
            input = try InputContext(url: path, formatName: nil)
        } catch let error as FFmpegError {
            throw ReelError.invalidInput("cannot read \(path): \(error.inputProblem)")
        }
        let streams = input.streams.map { stream -> MediaDescription.Stream in
            let isVideo = stream.mediaType == .video, isAudio = stream.mediaType == .audio
            return MediaDescription.Stream(
                index: stream.index, type: isVideo ? "video" : isAudio ? "audio" : "other", codec: stream.codecName,
                width: isVideo ? stream.width : nil, height: isVideo ? stream.height : nil,
                frameRate: isVideo && !stream.isAttachedPicture ? stream.frameRate?.doubleValue : nil,
                sampleRate: isAudio ? stream.sampleRate : nil, channels: isAudio ? stream.channelCount : nil,
                duration: stream.durationSeconds, frames: stream.frameCount > 0 ? stream.frameCount : nil,
                rotation: isVideo ? stream.rotationDegrees : nil, mirrored: isVideo && stream.isMirrored ? true : nil, attachedPicture: stream.isAttachedPicture ? true : nil,
                colour: isVideo && stream.colour != .unspecified ? stream.colour.description : nil)
        }
        return MediaDescription(path: path, format: input.formatName, duration: input.durationSeconds, streams: streams)
    }
}

/// FFmpeg's own log output (process-wide): Reel leaves FFmpeg's level as the application set it (FFmpeg's
/// default prints warnings and information on stderr); call `silence()` for none, as the `reel` CLI does.
public enum FFmpegLogging {
    /// No FFmpeg (or x265) log lines at all.
    public static func silence() { FFmpegLibrary.setLogLevel(.quiet) }

    /// Turns FFmpeg's log on at a level named as -loglevel does ("error", "warning", "info", "debug");
    /// false for an unknown name.
    @discardableResult
    public static func enable(levelName: String) -> Bool {
        guard let level = FFmpegLibrary.LogLevel(name: levelName) else { return false }
        FFmpegLibrary.setLogLevel(level)
        return true
    }
}
