import Foundation

/// Pictures compared through the ffmpeg CLI: decoded to raw RGB and compared pixel by pixel.
public enum PictureComparison {
    /// RGB24 pixels of a picture file, or of frame `index` of a movie, as ffmpeg decodes it (autorotated).
    public static func rgb(_ path: String, frame index: Int? = nil, size: (Int, Int)? = nil) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("reel-rgb-\(UUID().uuidString).rgb").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var arguments = ["-v", "error", "-i", path]
        if let index { arguments += ["-vf", "select=eq(n\\,\(index))"] }
        if let size { arguments += ["-s", "\(size.0)x\(size.1)"] }
        arguments += ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", output]
        let result = try Processes.run("/usr/bin/ffmpeg", arguments)
        guard result.status == 0 else { throw SetupFailure(result.standardError) }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// The stored yuv420p planes of frame 0 (Y, then U, then V), as the decoder gives them: no conversion, so
    /// luma is the code value written (16–235 in limited range). The file's pictures must be yuv420p.
    public static func yuv420p(_ path: String) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("reel-yuv-\(UUID().uuidString).yuv").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try Processes.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                                                           "-pix_fmt", "yuv420p", output])
        guard result.status == 0 else { throw SetupFailure(result.standardError) }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// The RGB of pixel (x, y) in `pixels` from `rgb(_:)` of a picture `width` wide.
    public static func pixel(_ pixels: [UInt8], width: Int, x: Int, y: Int) -> (red: Int, green: Int, blue: Int) {
        let offset = (y * width + x) * 3
        return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
    }

    public static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var total = 0
        for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
        return Double(total) / Double(a.count)
    }

    /// PSNR (dB) of `picture` against `reference` over all planes in `format` (yuv420p, or rgb24 to compare
    /// pictures of different colour matrices as they are shown), by ffmpeg's psnr filter.
    public static func psnr(_ picture: String, against reference: String, format: String = "yuv420p") throws -> Double {
        let result = try Processes.run("/usr/bin/ffmpeg", [
            "-v", "info", "-i", picture, "-i", reference, "-lavfi",
            "[0:v]format=\(format)[a];[1:v]format=\(format)[b];[a][b]psnr", "-f", "null", "-"])
        guard let range = result.standardError.range(of: "average:") else { throw SetupFailure(result.standardError) }
        // "inf" for identical pictures.
        let number = result.standardError[range.upperBound...].prefix { !$0.isWhitespace }
        return Double(number) ?? 0
    }

    public struct SetupFailure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}

