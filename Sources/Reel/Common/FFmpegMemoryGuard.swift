import FFmpegCore

/// Caps the size of any single block FFmpeg allocates. A damaged movie can declare billions of samples, and
/// FFmpeg's mov demuxer then allocates an index of gigabytes before reading any of them (found by fuzzing:
/// 2.7 GB and 3-6 s for a 4 KB file; the ffmpeg CLI does the same). Nothing legitimate needs one block this
/// large: an 8K picture is 50 MB. The `reel` command line sets it; library users may.
public enum FFmpegMemoryGuard {
    public static let defaultBlockLimit = 512 * 1024 * 1024

    public static func limitBlockSize(to bytes: Int = defaultBlockLimit) {
        FFmpegLibrary.limitBlockSize(to: bytes)
    }
}
