/// How several sound inputs are recorded (`--audio-tracks`): summed into one track, or each as a track of its
/// own in the movie (OBS's multitrack recording), named after its input.
public enum AudioTrackMode: String, Sendable, CaseIterable {
    /// One AAC track: the inputs summed at their gains, kept under full scale (AudioMix, PeakLimiter).
    case mix
    /// One AAC track per input (up to `RecordingConfiguration.maximumAudioInputs`), all on the same timeline;
    /// live streams and the replay buffer take the first; the session's meters read every track's channels.
    case separate

    public static var names: String { allCases.map(\.rawValue).joined(separator: " or ") }
}
