import FFmpegCore

/// Several video inputs composed into one picture (see ComposedVideoSource and VideoLayout): the layout
/// changed while the session runs, and one input switched.
extension CaptureSession {
    /// The layout the composed picture has now; nil when the session composes nothing.
    public var layout: VideoLayout? { composition?.layoutNow }

    /// The composed inputs (after any switch), in order; empty when the session composes nothing.
    public var videoInputs: [DeviceSpec] { composition?.specs ?? [] }

    /// Changes the layout between two frames: the next composed picture has the new one.
    public func setLayout(_ layout: VideoLayout) throws {
        try requireComposition().setLayout(layout)
    }

    /// `pip`, `side-by-side`, `grid`, `only:N` or a layout file, for the session's inputs.
    public func setLayout(named nameOrPath: String) throws {
        let composition = try requireComposition()
        try composition.setLayout(try VideoLayout.named(nameOrPath, inputs: composition.specs.count))
    }

    /// Replaces composed input `input` (from 1) with `spec` (nil: black pictures) while recording: the new
    /// input's first picture is read before the old one stops, so its rectangle never goes blank. Throws,
    /// changing nothing, when the input cannot be opened or delivers nothing.
    public func switchVideo(input: Int, to spec: DeviceSpec?) throws {
        let composition = try requireComposition()
        let specs = composition.specs
        guard (1...specs.count).contains(input) else {
            throw ReelError.invalidInput("video input \(input): the session composes \(specs.count), numbered 1 to \(specs.count)")
        }
        guard composition.isPaced else {
            throw ReelError.invalidInput("switching needs a live session (devices, or lavfi sources without realtime=0)")
        }
        let target = spec ?? InputSwitcher.blackPictures
        guard let preset = shared.withLock({ $0.running?.switcher.factory.preset }) else {
            throw ReelError.invalidInput("the session is not recording: start it before switching inputs")
        }
        try InputSwitcher.replaceComposedInput(input - 1, of: composition, with: target, preset: preset, old: specs[input - 1])
    }

    var composition: ComposedVideoSource? { shared.withLock { $0.running?.composition } }

    private func requireComposition() throws -> ComposedVideoSource {
        guard let composition else {
            throw ReelError.invalidInput(shared.withLock { $0.running == nil }
                ? "the session is not recording: start it before changing its layout"
                : "this session records one video input: start it with several --video inputs or a --layout to compose")
        }
        return composition
    }
}
