import FFmpegCore
import FoundationEssentials
import Glibc

/// A still from a live device without recording, as AVCaptureStillImageOutput: open the device in the
/// preset's mode, let it settle for a few frames, scale the next one to the preset's size and encode it.
public enum LiveSnapshot {
    /// Frames to skip by default: cameras' first frames are dark while auto-exposure settles.
    public static func defaultSkipFrames(for spec: DeviceSpec) -> Int { spec.kind == .v4l2 ? 15 : 0 }

    /// Frames that may be skipped: at 30 fps, about five minutes.
    public static let skipFramesRange: ClosedRange<Int> = 0...10_000

    /// `cameraControls` are given to a V4L2 camera before its first frame.
    public static func take(from spec: DeviceSpec, preset: Preset, skipFrames: Int? = nil, to still: StillRequest,
                            cameraControls: [CameraControlSetting] = []) throws {
        try still.validate()
        if !cameraControls.isEmpty {
            guard spec.kind == .v4l2 else {
                throw ReelError.invalidInput("camera controls need a V4L2 camera as the video source (v4l2:/dev/videoN)")
            }
            try CameraControlSetting.apply(cameraControls, to: spec.target, spec: spec)
        }
        let skip = skipFrames ?? defaultSkipFrames(for: spec)
        guard LiveSnapshot.skipFramesRange.contains(skip) else {
            throw ReelError.invalidInput("skipping \(skip) frames is out of range: use \(LiveSnapshot.skipFramesRange.lowerBound) to \(LiveSnapshot.skipFramesRange.upperBound)")
        }
        let recipe = InputRecipe.make(for: spec, role: .video, preset: preset)
        let interrupt = InterruptFlag()
        let frames = try recipe.openSource(spec: spec, roles: [.video], interrupt: interrupt)
        let colour = try frames.stream(of: .video).map {
            try ColourPlan(for: $0, outputWidth: preset.video.width, outputHeight: preset.video.height,
                           sourceName: spec.name)
        }
        let frame = Frame()
        // A device that stops delivering must not hang the command.
        interrupt.setDeadline(secondsFromNow: 10 + Double(skip) / max(preset.video.fps, 1))
        for index in 0...skip {
            let got: Bool
            do {
                got = try frames.next(into: frame)
            } catch {
                throw ReelError.runtime("\(spec) failed after \(index) frames: \(error)")
            }
            guard got else {
                throw ReelError.runtime("\(spec) ended after \(index) frames, before the picture (after skipping \(skip) frames)")
            }
        }
        let source = try colour?.makeToneMapper()?.convert(frame) ?? frame
        if source.width == preset.video.width && source.height == preset.video.height {
            // Already the preset's size: the still writer converts it into the picture format itself (one
            // conversion instead of two).
            try StillImageWriter.write(source, rotation: 0, to: still)
            return
        }
        let scaler = Scaler(outputWidth: preset.video.width, outputHeight: preset.video.height,
                            outputColour: colour?.output ?? .unspecified)
        let picture = Frame()
        try picture.allocateVideo(width: preset.video.width, height: preset.video.height, pixelFormat: .yuv420p)
        try scaler.scale(source, into: picture)
        try StillImageWriter.write(picture, rotation: 0, to: still)
    }
}
