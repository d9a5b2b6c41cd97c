import FFmpegCore
import QuickTime

/// How a trim encodes pictures again. A movie that libx264 or libx265 made carries the options it was made with
/// (X264Options, X265Options, read from its first keyframe): the encoder given them back writes the movie's own
/// parameter sets,
/// so re-encoded pictures can sit between copied ones under the movie's one sample description (`matchesInput`;
/// the trimmer still compares the parameter sets before it relies on it). Anything else is encoded anew —
/// libx264 (libx265 for HEVC) at a quality that hides the second generation — and the whole span then is.
struct TrimEncoding {
    var settings: VideoEncoderSettings
    /// The encoder was given the input's own options: its parameter sets may be the input's.
    var matchesInput: Bool
    /// How the pictures are encoded, for the result's note.
    var summary: String

    /// Quality of a fresh encode (x264's and x265's constant rate factor): visually transparent for a second
    /// generation, as editors' "smart render" defaults are.
    static let freshQuality = (h264: "18", hevc: "20")

    init(stream: StreamInfo, firstKeyframe: [UInt8]) {
        let rate = stream.frameRate ?? Rational(30, 1)
        let twoSeconds = max(1, Int((2 * rate.doubleValue).rounded()))
        var settings = VideoEncoderSettings(width: stream.width, height: stream.height, frameRate: rate, keyframeInterval: twoSeconds)
        // The encoder counts in pictures (1/rate), as libx264 was driven when it made the input (by Reel and by
        // ffmpeg): the clock is in the parameter sets' timing information. Pictures get their input times back.
        settings.pixelFormat = stream.pixelFormat
        settings.colour = stream.colour
        if stream.codecName == "h264", let options = X264Options(payload: firstKeyframe) {
            settings.keyframeInterval = Int(options.value("keyint") ?? "") ?? twoSeconds
            settings.privateOptions = [PrivateOption("x264-params", options.parameters)]
            matchesInput = true
            summary = "libx264 with the input's own options"
        } else if stream.codecName == "hevc", let options = X265Options(payload: stream.extradata) ?? X265Options(payload: firstKeyframe) {
            // Reel's and FFmpeg's x265 streams keep the SEI among the headers of the sample description.
            settings.codecName = "libx265"
            settings.keyframeInterval = Int(options.value("keyint") ?? "") ?? twoSeconds
            settings.privateOptions = [PrivateOption("x265-params", options.parameters)]
            matchesInput = true
            summary = "libx265 with the input's own options"
        } else if stream.codecName == "hevc" {
            settings.codecName = "libx265"
            settings.privateOptions = [PrivateOption("preset", "fast"), PrivateOption("crf", TrimEncoding.freshQuality.hevc),
                                       PrivateOption("x265-params", "log-level=error:keyint=\(twoSeconds):open-gop=0")]
            matchesInput = false
            summary = "libx265 (CRF \(TrimEncoding.freshQuality.hevc))"
        } else {
            settings.privateOptions = [PrivateOption("preset", "medium"), PrivateOption("crf", TrimEncoding.freshQuality.h264)]
            matchesInput = false
            summary = "libx264 (CRF \(TrimEncoding.freshQuality.h264))"
        }
        self.settings = settings
    }
}
