import FFmpegCore
import FoundationEssentials
import Glibc

/// Where a still picture goes and how it is encoded: JPEG or PNG by the file's extension.
public struct StillRequest: Sendable, Equatable {
    public var path: String
    /// JPEG quality 1...100 (ignored for PNG).
    public var quality: Int
    public var overwrite: Bool
    /// Scale the picture down to this width (its display aspect kept), as a thumbnail; nil keeps its size.
    public var width: Int? = nil

    public static let defaultQuality = 95
    public static let qualityRange: ClosedRange<Int> = 1...100

    public init(path: String, quality: Int = StillRequest.defaultQuality, overwrite: Bool = false, width: Int? = nil) {
        self.path = path
        self.width = width
        self.quality = quality
        self.overwrite = overwrite
    }

    public var codec: ImageCodec? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        default: return nil
        }
    }

    /// Rejects what cannot work before anything is captured or written.
    public func validate() throws {
        guard codec != nil else {
            throw ReelError.invalidInput("still \(path) must end in .jpg, .jpeg or .png (the extension picks the format)")
        }
        guard StillRequest.qualityRange.contains(quality) else {
            throw ReelError.invalidInput("still quality \(quality) must be from 1 to 100")
        }
        try FileSystem.checkNewFile(path, what: "the still", names: ".jpg or .png", overwrite: overwrite)
    }
}

/// Encodes one picture as JPEG or PNG, as players show it: square pixels at its display aspect (a 720x576
/// picture with 64:45 pixels becomes 1024x576, the width scaled as ffmpeg's `scale=iw*sar:ih`), colours
/// converted from the picture's own matrix and range (JPEG is full-range BT.601, PNG RGB), turned upright;
/// written under a temporary name that is renamed into place only when complete.
enum StillImageWriter {
    static func write(_ frame: Frame, rotation: DisplayTurn, to request: StillRequest) throws {
        guard let codec = request.codec else { try request.validate(); return }
        try writeAtomically(try encode(frame, rotation: rotation, codec: codec, quality: request.quality, width: request.width).bytes,
                            to: request.path)
    }

    /// The picture encoded as JPEG or PNG, upright, at its display size or, with `width`, scaled to that width
    /// (its display aspect kept, the height even). `frame` is only read.
    static func encode(_ frame: Frame, rotation: DisplayTurn, codec: ImageCodec, quality: Int,
                       width: Int? = nil) throws -> (bytes: [UInt8], width: Int, height: Int) {
        // Rotation works on planar 4:2:0: bring the picture there (as JPEG's full-range 4:2:0) at its display
        // size first, unless it already is.
        var picture = frame
        var display = displaySize(of: frame)
        if let width, width < display.width {
            display = (width & ~1, max(2, Int((Double(display.height) * Double(width) / Double(display.width)).rounded()) & ~1))
        }
        if (frame.pixelFormat != .yuv420p && frame.pixelFormat != .yuvj420p)
            || (display.width, display.height) != (frame.width, frame.height) {
            picture = try convert(frame, to: .yuvj420p, width: display.width, height: display.height)
        }
        picture = try FrameRotation.turned(picture, by: rotation)
        let final = Scaler(outputWidth: picture.width, outputHeight: picture.height, outputFormat: codec.pixelFormat)
        if !final.isPassThrough(for: picture) {
            picture = try convert(picture, with: final)
        }
        let encoder = try Encoder(image: codec, width: picture.width, height: picture.height, jpegQuality: quality)
        if picture === frame {
            // The caller's frame is read-only (a running session's outputs may read it): stamp a reference.
            let own = Frame()
            try own.reference(frame)
            picture = own
        }
        picture.pts = 0
        picture.quality = encoder.frameQuality
        var bytes: [UInt8] = []
        let packet = Packet()
        for input in [picture, nil] {
            _ = try encoder.send(input)
            while try encoder.receive(into: packet) == .received { bytes += packet.data }
        }
        return (bytes, picture.width, picture.height)
    }

    /// The size with square pixels: the width scaled by the pixel aspect (to an even number), the height kept.
    static func displaySize(of frame: Frame) -> (width: Int, height: Int) {
        let aspect = frame.sampleAspectRatio
        guard aspect.isValid, aspect.numerator != aspect.denominator else { return (frame.width, frame.height) }
        let width = Int((Double(frame.width) * aspect.doubleValue).rounded()) & ~1
        return (max(width, 2), frame.height)
    }

    private static func convert(_ frame: Frame, to format: PixelFormat, width: Int, height: Int) throws -> Frame {
        try convert(frame, with: Scaler(outputWidth: width, outputHeight: height, outputFormat: format))
    }

    private static func convert(_ frame: Frame, with scaler: Scaler) throws -> Frame {
        let output = Frame()
        try output.allocateVideo(width: scaler.outputWidth, height: scaler.outputHeight, pixelFormat: scaler.outputFormat)
        try scaler.scale(frame, into: output)
        return output
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let partial = PartialName.path(for: path)
        if let problem = FileSystem.write(bytes, to: partial) {
            let full = problem == String(cString: strerror(ENOSPC))
            unlink(partial)
            throw ReelError(full ? .diskFull : .runtime, "cannot write the still \(path): \(problem); free space or choose another folder")
        }
        let failure = FileSystem.moveIntoPlace(partial, path)
        guard failure == 0 else {
            let reason = String(cString: strerror(failure))
            unlink(partial)
            throw ReelError.runtime("cannot move the still into place at \(path): \(reason)")
        }
    }
}
