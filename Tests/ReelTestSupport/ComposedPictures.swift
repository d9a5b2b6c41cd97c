import Foundation

/// Reads composed movies back: each picture's luma as ffmpeg decodes it, and the frame number a
/// `TestInputs.numberedPictures` input shows inside a rectangle of it (wherever a layout scaled it to).
public struct ComposedPictures {
    public let width: Int
    public let height: Int
    /// One luma plane per decoded picture, in presentation order.
    public let frames: [[UInt8]]

    public init(_ path: String) throws {
        let video = try FFprobe.stream(path, type: "video")
        guard let width = video?["width"] as? Int, let height = video?["height"] as? Int else {
            throw PictureComparison.SetupFailure("\(path) has no video stream")
        }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-luma-\(UUID().uuidString).y").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        // 4:2:0 as stored (ffmpeg's gray would stretch video range to full).
        try TestInputs.ffmpeg(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = width * height, frameSize = size * 3 / 2
        self.width = width
        self.height = height
        frames = (0..<(bytes.count / frameSize)).map { Array(bytes[($0 * frameSize)..<($0 * frameSize + size)]) }
    }

    /// The mean luma of a rectangle of picture `index`.
    public func meanLuma(_ index: Int, x: Int, y: Int, width w: Int, height h: Int) -> Double {
        var sum = 0
        for row in y..<(y + h) { for column in x..<(x + w) { sum += Int(frames[index][row * width + column]) } }
        return Double(sum) / Double(w * h)
    }

    /// The number a numbered input shows in the square (x, y, side) of picture `index`: its left half's level
    /// is the low four bits, the right half's the next four (read in blocks well inside each half, as
    /// `TestInputs.frameNumbers` reads a 64x64 picture).
    public func number(_ index: Int, x: Int, y: Int, side: Int) -> Int {
        number(index, x: x, y: y, width: side, height: side)
    }

    /// The same in a rectangle (a 4:3 camera's numbered area, scaled).
    public func number(_ index: Int, x: Int, y: Int, width w: Int, height h: Int) -> Int {
        let level = { (mean: Double) in max(0, min(15, Int(((mean - 22) / 13).rounded()))) }
        let low = meanLuma(index, x: x + w / 8, y: y + h * 3 / 8, width: w / 4, height: h / 4)
        let high = meanLuma(index, x: x + w * 5 / 8, y: y + h * 3 / 8, width: w / 4, height: h / 4)
        return level(low) + 16 * level(high)
    }
}
