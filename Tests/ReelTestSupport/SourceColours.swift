import Foundation

/// Which source each picture of a movie came from, when the sources are told apart by colour (lavfi
/// `color=red`, `color=blue`, black for `none`, an X screen filled with one colour).
public enum SourceColours {
    /// The mean colour of every picture, in presentation order (each picture shrunk to 8x8 RGB).
    public static func meanColours(_ path: String) throws -> [(r: Int, g: Int, b: Int)] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("reel-colours-\(UUID().uuidString).rgb").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try TestInputs.ffmpeg(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-vf", "scale=8:8:flags=area",
                               "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: raw)))
        return stride(from: 0, to: bytes.count - 191, by: 192).map { start in
            var sums = (0, 0, 0)
            for pixel in 0..<64 {
                sums.0 += Int(bytes[start + 3 * pixel])
                sums.1 += Int(bytes[start + 3 * pixel + 1])
                sums.2 += Int(bytes[start + 3 * pixel + 2])
            }
            return (sums.0 / 64, sums.1 / 64, sums.2 / 64)
        }
    }

    /// A name for a mean colour: "red", "green", "blue", "black", "white", or "mixed".
    public static func name(_ colour: (r: Int, g: Int, b: Int)) -> String {
        let (r, g, b) = colour
        if r < 40 && g < 40 && b < 40 { return "black" }
        if r > 200 && g > 200 && b > 200 { return "white" }
        if r > 150 && g < 80 && b < 80 { return "red" }
        if g > 100 && r < 80 && b < 80 { return "green" }
        if b > 150 && r < 80 && g < 80 { return "blue" }
        return "mixed"
    }

    /// The runs of one source in a movie: (name, first picture, pictures).
    public static func runs(_ path: String) throws -> [(name: String, start: Int, count: Int)] {
        var runs: [(name: String, start: Int, count: Int)] = []
        for (index, colour) in try meanColours(path).enumerated() {
            let name = name(colour)
            if let last = runs.last, last.name == name { runs[runs.count - 1].count += 1 } else { runs.append((name, index, 1)) }
        }
        return runs
    }
}
