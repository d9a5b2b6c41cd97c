import FFmpegCore
import FoundationEssentials
import Glibc

/// Where a still picture goes and how it is encoded: JPEG or PNG by the file's extension.
public struct StillRequest: Sendable, Equatable {
    public var path: String
    /// JPEG quality 1...100 (ignored for PNG).
    public var quality: Int
    public var overwrite: Bool

    public static let defaultQuality = 95
    public static let qualityRange: ClosedRange<Int> = 1...100

    public init(path: String, quality: Int = StillRequest.defaultQuality, overwrite: Bool = false) {
        self.path = path
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
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileSystem.isFolder(folder) else {
            throw ReelError.invalidInput("folder \(folder) for the still does not exist: create it first")
        }
        guard access(folder, W_OK) == 0 else {
            throw ReelError.invalidInput("folder \(folder) for the still is not writable (\(String(cString: strerror(errno)))): choose another folder")
        }
        if FileSystem.isFolder(path) || FileSystem.isSpecialFile(path) {
            throw ReelError.invalidInput("\(path) is a folder or a special file: give the still a file name ending in .jpg or .png")
        }
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            throw ReelError.invalidInput("\(path) already exists: choose another name or pass --overwrite")
        }
    }
}

/// Encodes one picture as JPEG or PNG, turned upright, and writes it under a temporary name that is renamed
/// into place only when complete.
enum StillImageWriter {
    static func write(_ frame: Frame, rotation: Int, to request: StillRequest) throws {
        guard let codec = request.codec else { try request.validate(); return }
        // Rotation works on planar 4:2:0; bring the picture there first unless it already is.
        var picture = frame
        if frame.pixelFormat != .yuv420p && frame.pixelFormat != .yuvj420p {
            picture = try convert(frame, to: .yuv420p)
        }
        picture = try FrameRotation.rotated(picture, clockwiseDegrees: rotation)
        if picture.pixelFormat != codec.pixelFormat {
            picture = try convert(picture, to: codec.pixelFormat)
        }
        let encoder = try Encoder(image: codec, width: picture.width, height: picture.height, jpegQuality: request.quality)
        picture.pts = 0
        picture.quality = encoder.frameQuality
        var bytes: [UInt8] = []
        let packet = Packet()
        for input in [picture, nil] {
            _ = try encoder.send(input)
            while try encoder.receive(into: packet) == .received { bytes += packet.data }
        }
        try writeAtomically(bytes, to: request.path)
    }

    private static func convert(_ frame: Frame, to format: PixelFormat) throws -> Frame {
        let scaler = Scaler(outputWidth: frame.width, outputHeight: frame.height, outputFormat: format)
        let output = Frame()
        try output.allocateVideo(width: frame.width, height: frame.height, pixelFormat: format)
        try scaler.scale(frame, into: output)
        return output
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let partial = CaptureSession.partialPath(for: path)
        if let problem = FileSystem.write(bytes, to: partial) {
            unlink(partial)
            throw ReelError.runtime("cannot write the still \(path): \(problem); free space or choose another folder")
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw ReelError.runtime("cannot move the still into place at \(path): \(reason)")
        }
    }
}
