extension CameraService {
    /// What the session runs on; the page's pickers change it.
    struct Inputs: Codable, Sendable, Equatable {
        var video: String?
        var audio: String?
        var preset: String
        /// Video inputs after the first, composed by `layout` (`reel serve --video A --video B`), and sound
        /// inputs after the first, mixed (or, with `audioTracks` "separate", each a track of its own).
        var moreVideo: [String]? = nil
        var layout: String? = nil
        var moreAudio: [String]? = nil
        var audioTracks: String? = nil
    }
}
